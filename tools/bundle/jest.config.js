/** @type {import('jest').Config} */
module.exports = {
  displayName: 'app-bundles',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/**/*.spec.ts'],
  // Builds four apps, installs their production dependencies and starts each: minutes, not seconds.
  testTimeout: 300_000,
};
