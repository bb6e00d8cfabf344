/** @type {import('jest').Config} */
module.exports = {
  displayName: 'tools',
  preset: '../jest.preset.js',
  testMatch: ['<rootDir>/**/*.spec.ts'],
  // tools/bundle is its own project (app-bundles) with its own run.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/bundle/'],
};
