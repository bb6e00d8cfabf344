/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cards-ownership',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
