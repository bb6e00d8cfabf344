/** @type {import('jest').Config} */
module.exports = {
  displayName: 'shared-strict-json',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
