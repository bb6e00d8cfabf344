/**
 * The browser tier: the library bundled with esbuild and run in headless Chromium (Debian's
 * /usr/bin/chromium, driven by playwright-core) against a scripted relay on a real WebSocket server.
 * Separate from `test` because it needs the chromium package on the machine.
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: 'relay-client-browser',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/browser-test/**/*.browser.spec.ts'],
  testTimeout: 60_000,
};
