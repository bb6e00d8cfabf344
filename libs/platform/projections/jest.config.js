/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-projections',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
