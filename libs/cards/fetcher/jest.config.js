/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cards-fetcher',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
