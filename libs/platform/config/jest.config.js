/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-config',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
