/** @type {import('jest').Config} */
module.exports = {
  displayName: 'relay-client',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
