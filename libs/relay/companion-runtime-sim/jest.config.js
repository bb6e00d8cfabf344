/** @type {import('jest').Config} */
module.exports = {
  displayName: 'relay-companion-sim',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
