/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-events',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
