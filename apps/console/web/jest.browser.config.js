/**
 * The browser tier: the built page in headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core), its API answered by a small stand-in backend and its workspace's relay played over a real
 * WebSocket server. Separate from `test` because it needs the chromium package and a Vite build.
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: 'console-web-browser',
  preset: '../../../jest.preset.js',
  testMatch: ['<rootDir>/browser-test/**/*.browser.spec.ts'],
  testTimeout: 60_000,
};
