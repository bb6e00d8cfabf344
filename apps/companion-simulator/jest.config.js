/** @type {import('jest').Config} */
module.exports = {
  displayName: 'companion-simulator',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
