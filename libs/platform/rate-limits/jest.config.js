/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-rate-limits',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
