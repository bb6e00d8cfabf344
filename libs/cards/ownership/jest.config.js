/** @type {import('jest').Config} */
module.exports = {
  displayName: 'cards-ownership',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  // jose (card signatures, for the did:web proof) ships ES modules only; compile it to CommonJS.
  transformIgnorePatterns: ['/node_modules/(?!(@electric-sql/pglite|jose)/)'],
};
