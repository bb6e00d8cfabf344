/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cli',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // jose (card signatures) ships ES modules only; compile it to CommonJS like the preset does for PGlite.
  transformIgnorePatterns: ['/node_modules/(?!(@electric-sql/pglite|jose)/)'],
};
