/**
 * The console page's build (`nx build console-web`, `nx serve console-web`). Workspace libraries resolve
 * through tsconfig paths (Vite's own resolver); the dev server proxies `/api` to the console backend on
 * 127.0.0.1:8400 so the page and its API share one origin, as in production where the backend serves the page.
 */
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const BACKEND = process.env['CONSOLE_BACKEND_URL'] ?? 'http://127.0.0.1:8400';

/**
 * The relay protocol's validators are Ajv standalone output, generated as CommonJS
 * (libs/relay/protocol/src/generated/validators.compiled.js). The production build bundles CommonJS itself;
 * the dev server serves workspace files as ES modules untouched, so there this plugin turns that one kind of
 * file into a module: `require(x)` becomes an import, each `exports.name` a named export.
 */
function generatedCommonJs(): Plugin {
  return {
    name: 'trustmesh:generated-commonjs',
    apply: 'serve',
    transform(code, id) {
      if (!/[\\/]src[\\/]generated[\\/][^\\/]+\.compiled\.js$/.test(id)) return null;
      const imports: string[] = [];
      const body = code.replace(/require\(("[^"]+")\)/g, (_match, specifier: string) => {
        imports.push(`import * as __required${imports.length} from ${specifier};`);
        return `__required${imports.length - 1}`;
      });
      const names = [...new Set([...code.matchAll(/exports\.([A-Za-z_$][\w$]*)\s*=/g)].map((match) => match[1]))];
      return { code: `${imports.join('\n')}\nconst exports = {};\n${body}\nexport const { ${names.join(', ')} } = exports;\n`, map: null };
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  cacheDir: '../../../node_modules/.vite/apps/console/web',
  plugins: [react(), generatedCommonJs()],
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
    // The workspace chunk carries the relay protocol's compiled validators (about 1.3 MB, 130 KiB gzipped),
    // loaded only when a workspace opens; the first load stays near 120 KiB gzipped.
    chunkSizeWarningLimit: 1_500,
  },
});
