/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-database',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  // Real databases: a fresh PGlite takes seconds to initialise on two cores.
  testTimeout: 60_000,
};
