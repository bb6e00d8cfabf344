/** @type {import('jest').Config} */
module.exports = {
  displayName: 'relay-companion',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
