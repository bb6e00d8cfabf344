/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cards-signatures',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  // jose ships ES modules only; compile it to CommonJS like the preset does for PGlite.
  transformIgnorePatterns: ['/node_modules/(?!(@electric-sql/pglite|jose)/)'],
};
