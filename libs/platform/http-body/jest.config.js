/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-http-body',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
