/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cards-documents',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
