/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cards-namespaces',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
