/** @type {import('jest').Config} */
module.exports = {
  displayName: 'shield-records',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
