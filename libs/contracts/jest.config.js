// JavaScript, not jest.config.ts: on Node 20 Jest 30 can only read a TypeScript config through ts-node or
// esbuild-register, and neither is installed (Node >= 22.18 strips types natively; switch back then).
/** @type {import('jest').Config} */
module.exports = {
  displayName: 'contracts',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  coverageDirectory: '../../coverage/libs/contracts',
};
