/** @type {import('jest').Config} */
module.exports = {
  displayName: 'platform-e2e',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  // Every app runs as its own process on Postgres and the Kafka mock; two cores are shared with other suites.
  testTimeout: 300_000,
};
