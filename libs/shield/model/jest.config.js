/** @type {import('jest').Config} */
module.exports = {
  displayName: 'shield-model',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
