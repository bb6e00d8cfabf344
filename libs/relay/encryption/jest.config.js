/** @type {import('jest').Config} */
module.exports = {
  displayName: 'relay-encryption',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
