/** @type {import('jest').Config} */
module.exports = {
  displayName: 'shield-analysis',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
