/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-logging',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
