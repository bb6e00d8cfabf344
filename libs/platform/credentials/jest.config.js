/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-credentials',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
