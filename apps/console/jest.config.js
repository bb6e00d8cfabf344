/** @type {import('jest').Config} */
module.exports = {
  displayName: 'console',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // The page (web/) has its own runner; these are the backend's unit and e2e suites.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/web/'],
  // e2e suites start real servers and databases; two cores are shared with other suites.
  testTimeout: 60_000,
};
