/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-bus',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
