/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cards-registry-events',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
