/** @type {import('jest').Config} */
module.exports = {
  displayName: 'card-registry',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // e2e suites start real servers and databases; two cores are shared with other suites.
  testTimeout: 60_000,
  // jose (through @trustmesh/cards-signatures) ships ES modules only; compile it like the preset does PGlite
  // and the OTLP exporter base.
  transformIgnorePatterns: ['/node_modules/(?!(@electric-sql/pglite|jose|@opentelemetry/otlp-exporter-base)/)'],
};
