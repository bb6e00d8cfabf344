/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cli',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
