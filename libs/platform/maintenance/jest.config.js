/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-maintenance',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
