/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-testing',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
