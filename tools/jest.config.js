/** @type {import('jest').Config} */
module.exports = {
  displayName: 'tools',
  preset: '../jest.preset.js',
  testMatch: ['<rootDir>/**/*.spec.ts'],
};
