/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-backbone',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
