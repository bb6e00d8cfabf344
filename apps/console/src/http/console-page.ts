/**
 * Serving the built page (`npx nx build console-web` writes it to dist/apps/console/web): a file that exists
 * under the page's folder is sent as it is; any other path without a file extension is a client route and
 * gets index.html; no path reaches outside the folder (decoded, normalised, and checked to stay inside,
 * symlinks resolved). Vite's hashed assets (`/assets/name-<hash>.js`) never change under one name, so they
 * are cached for a year as immutable; index.html is revalidated every time so a new build is seen at once.
 * Without a build, every page path answers 503 with a page that says how to build it.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const HASHED_ASSET = /^\/assets\/[^/]+[-.][A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;
const MAX_PATH = 1024;

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Trustmesh console: page not built</title></head>
<body><h1>The console's page is not built</h1>
<p>The console's page is not built: run <code>npx nx build console-web</code>, then reload this page.</p>
</body></html>
`;

export class ConsolePage {
  private root: string | null | undefined;

  constructor(private readonly webDir: string) {}

  async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    request.resume();
    const root = await this.rootDir();
    const rawPath = ((request as { originalUrl?: string }).originalUrl ?? request.url ?? '/').split('?')[0] ?? '/';
    if (rawPath.length > MAX_PATH) return plain(response, 414, 'The path is too long.');
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      return plain(response, 400, 'The path is not valid URL encoding.');
    }
    if (path.includes('\0') || path.includes('\\')) return plain(response, 400, 'The path is not a page path.');
    if (!root) return html(response, 503, NOT_BUILT, 'no-store');

    const normalised = normalize(path).replace(/^(\.\.(\/|\\|$))+/, '');
    if (normalised.split(/[\\/]/).includes('..')) return plain(response, 404, 'Not found.');
    const candidate = join(root, normalised);
    const file = await this.fileInside(root, candidate);
    if (file) return this.sendFile(response, file, HASHED_ASSET.test(normalised) ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (extname(normalised) !== '') return plain(response, 404, 'Not found.');
    const index = await this.fileInside(root, join(root, 'index.html'));
    if (!index) return html(response, 503, NOT_BUILT, 'no-store');
    return this.sendFile(response, index, 'no-cache');
  }

  /** The page's folder (resolved), or null while it holds no index.html; looked up again until found. */
  private async rootDir(): Promise<string | null> {
    if (this.root) return this.root;
    try {
      const resolved = await realpath(this.webDir);
      if (!(await stat(join(resolved, 'index.html'))).isFile()) return null;
      this.root = resolved;
      return resolved;
    } catch {
      return null;
    }
  }

  /** The real path of `candidate` when it is a regular file inside `root` (symlinks followed and checked). */
  private async fileInside(root: string, candidate: string): Promise<string | null> {
    try {
      const real = await realpath(candidate);
      if (real !== root && !real.startsWith(root + sep)) return null;
      return (await stat(real)).isFile() ? real : null;
    } catch {
      return null;
    }
  }

  private async sendFile(response: ServerResponse, file: string, cacheControl: string): Promise<void> {
    const info = await stat(file);
    response.writeHead(200, { 'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream', 'Content-Length': info.size, 'Cache-Control': cacheControl });
    await new Promise<void>((resolvePromise) => {
      const stream = createReadStream(file);
      stream.on('error', () => {
        response.destroy();
        resolvePromise();
      });
      stream.on('end', () => resolvePromise());
      stream.pipe(response);
    });
  }
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  response.end(text);
}

function html(response: ServerResponse, status: number, text: string, cacheControl: string): void {
  response.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': cacheControl });
  response.end(text);
}
