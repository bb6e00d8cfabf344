/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-tracing',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
