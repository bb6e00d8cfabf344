/** @type {import('jest').Config} */
module.exports = {
  displayName: 'card-registry',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // e2e suites start real servers and databases; two cores are shared with other suites.
  testTimeout: 60_000,
};
