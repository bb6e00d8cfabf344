/**
 * The page server on a real folder: index.html for client routes, files as they are, nothing outside the
 * folder (a symlink out of it included), and the "not built" page while there is no build.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ConsolePage } from './console-page';

async function serve(page: ConsolePage): Promise<{ server: Server; get(path: string): Promise<{ status: number; text: string; cacheControl: string | undefined }> }> {
  const server = createServer((req, res) => void page.serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    get: (path) =>
      new Promise((resolve, reject) => {
        request({ host: '127.0.0.1', port, path }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text, cacheControl: response.headers['cache-control'] }));
        })
          .on('error', reject)
          .end();
      }),
  };
}

describe('ConsolePage', () => {
  let base: string;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'console-page-'));
    await mkdir(join(base, 'web', 'assets'), { recursive: true });
    await writeFile(join(base, 'secret.txt'), 'outside the page');
    await writeFile(join(base, 'web', 'index.html'), '<!doctype html><p>page</p>');
    await writeFile(join(base, 'web', 'assets', 'app-0123abcd.js'), 'export {}');
    await writeFile(join(base, 'web', 'robots.txt'), 'User-agent: *');
    await symlink(join(base, 'secret.txt'), join(base, 'web', 'leak.txt'));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('serves files, index.html for client routes, and refuses everything outside the folder', async () => {
    const { server, get } = await serve(new ConsolePage(join(base, 'web')));
    try {
      expect(await get('/')).toEqual({ status: 200, text: '<!doctype html><p>page</p>', cacheControl: 'no-cache' });
      expect((await get('/workspaces/abc')).text).toBe('<!doctype html><p>page</p>');
      expect(await get('/assets/app-0123abcd.js')).toEqual({ status: 200, text: 'export {}', cacheControl: 'public, max-age=31536000, immutable' });
      expect((await get('/robots.txt')).cacheControl).toBe('no-cache');
      for (const path of ['/leak.txt', '/../secret.txt', '/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt', '/%2e%2e/secret.txt', '/nothing.js']) {
        const reply = await get(path);
        expect(reply.status).toBe(404);
        expect(reply.text).not.toContain('outside the page');
      }
      expect((await get('/%E0%A4%A')).status).toBe(400);
      expect((await get('/a%00b')).status).toBe(400);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('answers 503 with how to build the page while it is not built, and serves it once it is', async () => {
    const later = join(base, 'later');
    const { server, get } = await serve(new ConsolePage(later));
    try {
      const missing = await get('/');
      expect(missing.status).toBe(503);
      expect(missing.text).toContain("The console's page is not built: run <code>npx nx build console-web</code>");
      expect((await get('/workspaces')).status).toBe(503);
      await mkdir(later);
      await writeFile(join(later, 'index.html'), 'built');
      expect(await get('/')).toMatchObject({ status: 200, text: 'built' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
