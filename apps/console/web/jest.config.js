/** @type {import('jest').Config} */
module.exports = {
  displayName: 'console-web',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
