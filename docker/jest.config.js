/** @type {import('jest').Config} */
module.exports = {
  displayName: 'docker',
  preset: '../jest.preset.js',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
};
