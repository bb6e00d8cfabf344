/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-event-feed',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
