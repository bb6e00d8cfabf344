/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cards-federation',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
