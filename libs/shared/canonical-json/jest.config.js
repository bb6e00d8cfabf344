/** @type {import('jest').Config} */
module.exports = {
  displayName: 'shared-canonical-json',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
