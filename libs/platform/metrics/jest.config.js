/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-metrics',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
