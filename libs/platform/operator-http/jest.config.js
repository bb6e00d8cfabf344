/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-operator-http',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
