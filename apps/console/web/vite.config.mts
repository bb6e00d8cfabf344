/**
 * The console page's build (`nx build console-web`, `nx serve console-web`). Workspace libraries resolve
 * through tsconfig paths (Vite's own resolver); the dev server proxies `/api` to the console backend on
 * 127.0.0.1:8400 so the page and its API share one origin, as in production where the backend serves the page.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const BACKEND = process.env['CONSOLE_BACKEND_URL'] ?? 'http://127.0.0.1:8400';

export default defineConfig({
  root: import.meta.dirname,
  cacheDir: '../../../node_modules/.vite/apps/console/web',
  plugins: [react()],
  resolve: { tsconfigPaths: true },
  server: {
    host: '127.0.0.1',
    port: 4200,
    proxy: { '/api': { target: BACKEND, changeOrigin: false } },
  },
  preview: { host: '127.0.0.1', port: 4300 },
  build: {
    outDir: '../../../dist/apps/console/web',
    emptyOutDir: true,
    reportCompressedSize: true,
    // Hashed names: the backend serves `assets/*` as immutable and index.html as no-store.
    assetsDir: 'assets',
    sourcemap: true,
  },
});
