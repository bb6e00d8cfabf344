/**
 * `trustmesh cards publish|get|status|search|crawl` as a user runs them: the card registry started here as
 * its own process (embedded PGlite in a temporary directory, an operator credential configured as its
 * digest), a publisher onboarded over the operator API, and the real bin called with TRUSTMESH_REGISTRY_URL
 * and TRUSTMESH_REGISTRY_TOKEN (or --token-file). `crawl` asks the same registry to crawl a federation
 * source now (`POST /v1/operator/sources/{id}/crawl`): the source is a real HTTPS site on 127.0.0.1 with a
 * certificate from a test CA, which the registry reaches only through its REGISTRY_TEST_ONLY_* fetch
 * overrides (the test CA, a host table, loopback admitted); its scheduler is off, so only the CLI crawls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createTestCa, startHttpsServer, type TestHttpsServer } from '@trustmesh/cards-fetcher/testing';
import { waitUntil } from '@trustmesh/platform-testing';

const ROOT = join(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'trustmesh.js');
const OPERATOR = `registry-operator-${randomBytes(16).toString('hex')}`;

let dir: string;
let registry: ChildProcess;
let registryOut = '';
let registryUrl: string;
let publisherToken: string;
/** The federation source the registry crawls: `https://crawl.test:<port>`. */
let site: TestHttpsServer;
const SITE_HOST = 'crawl.test';
const REMOTE_CARD = 'https://crawl.example/agents/remote-ledger';

async function rest(method: string, path: string, token: string, body?: unknown): Promise<any> {
  const response = await fetch(`${registryUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status}`);
  return response.json();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trustmesh-cli-cards-registry-'));
  const ca = await createTestCa();
  let origin = '';
  site = await startHttpsServer(
    {
      '/.well-known/ai-catalog.json': () => ({
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ $schema: 'https://schemas.example.org/ai-catalog/v1.json', host: { name: 'Crawl Example' }, aiCards: [{ id: REMOTE_CARD, name: 'Remote ledger', description: 'A ledger agent this host lists', cardUrl: `${origin}/cards/ledger.json`, updatedAt: '2026-02-01T10:00:00Z' }] }),
      }),
      '/cards/ledger.json': { headers: { 'content-type': 'application/json' }, body: card({ id: REMOTE_CARD, name: 'Remote ledger', publisher: { id: 'did:web:crawl.example', name: 'Crawl Example' } }) },
    },
    { ca, hostnames: [SITE_HOST] },
  );
  origin = site.origin;
  registry = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps', 'card-registry', 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? dir,
      TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.base.json'),
      TRUSTMESH_DATA_DIR: join(dir, 'data'),
      REGISTRY_HTTP_PORT: '0',
      REGISTRY_GRPC_PORT: '0',
      REGISTRY_OPERATOR_PORT: 'off',
      REGISTRY_OPERATOR_CREDENTIALS: `ops:${createHash('sha256').update(OPERATOR).digest('hex')}`,
      REGISTRY_FEDERATION_SCHEDULER: 'off',
      REGISTRY_TEST_ONLY_FETCH_CA_PEM: ca.cert,
      REGISTRY_TEST_ONLY_FETCH_HOSTS: `${SITE_HOST}=127.0.0.1`,
      REGISTRY_TEST_ONLY_ADMIT_LOOPBACK: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  registry.stdout?.on('data', (chunk: Buffer) => (registryOut += chunk.toString('utf8')));
  registry.stderr?.resume();
  await waitUntil(() => /"msg":"card registry listening"/.test(registryOut) || registry.exitCode !== null, { timeoutMs: 180_000, what: 'the card registry to listen' });
  const line = registryOut.split('\n').find((text) => text.includes('"msg":"card registry listening"'));
  if (!line) throw new Error(`the card registry exited (${registry.exitCode})`);
  registryUrl = String((JSON.parse(line) as { http: string }).http);

  await rest('POST', '/v1/operator/publishers', OPERATOR, { publisherId: 'acme', displayName: 'Acme Ltd' });
  await rest('POST', '/v1/operator/namespaces', OPERATOR, { namespace: 'acme.example', publisherId: 'acme' });
  publisherToken = (await rest('POST', '/v1/operator/publishers/acme/credentials', OPERATOR, { label: 'cli' })).credential as string;
}, 240_000);

afterAll(async () => {
  if (registry && registry.exitCode === null) {
    const exited = new Promise((resolve) => registry.once('exit', resolve));
    registry.kill('SIGTERM');
    await exited;
  }
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const card = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      $schema: 'https://schemas.example.org/ai-card/v1.json',
      specVersion: '1.0',
      id: 'https://acme.example/agents/ledger',
      name: 'Ledger agent',
      description: 'Answers questions about the ledger',
      publisher: { id: 'did:web:acme.example', name: 'Acme Ltd' },
      services: { a2a: { type: 'a2a', name: 'Ledger over A2A', protocolSpecific: { url: 'https://acme.example/a2a' } } },
      createdAt: '2026-01-05T09:00:00Z',
      updatedAt: '2026-01-06T09:00:00Z',
      ...overrides,
    },
    null,
    2,
  );

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json(): any;
}

/** Runs the bin without blocking this process (the federation site answers the registry from it). */
function cards(args: string[], options: { token?: string | null; url?: string; input?: string } = {}): Promise<Run> {
  const token = options.token === undefined ? publisherToken : options.token;
  const child = spawn(process.execPath, [BIN, 'cards', ...args], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', TRUSTMESH_REGISTRY_URL: options.url ?? registryUrl, ...(token !== null ? { TRUSTMESH_REGISTRY_TOKEN: token } : {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) =>
    child.once('close', (code) => {
      // A credential never reaches the output.
      expect(stdout + stderr).not.toContain(publisherToken);
      expect(stdout + stderr).not.toContain(OPERATOR);
      resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) });
    }),
  );
}

describe('trustmesh cards (against a running registry)', () => {
  it('publishes a card, reports the same bytes as unchanged, reads it back exactly, and yanks it', async () => {
    const document = card();
    const path = file('ledger.json', document);
    const published = await cards(['publish', path]);
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    expect(published.stdout).toMatch(/^published: https:\/\/acme\.example\/agents\/ledger revision 2026-01-06T09:00:00Z sha256:[0-9a-f]{64} \[active\]$/m);

    const again = await cards(['publish', '--json', '-'], { input: document });
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ identifier: 'https://acme.example/agents/ledger', created: false, dryRun: false });

    const latest = await cards(['get', 'https://acme.example/agents/ledger', '--json'], { token: null });
    expect(latest.code).toBe(0);
    expect(latest.json()).toMatchObject({ identifier: 'https://acme.example/agents/ledger', latest: { revision: '2026-01-06T09:00:00Z', status: 'active' } });
    const exact = await cards(['get', 'https://acme.example/agents/ledger', '--revision', '2026-01-06T09:00:00Z'], { token: null });
    expect(exact.code).toBe(0);
    expect(exact.stdout).toBe(`${document}\n`);

    const yanked = await cards(['status', 'https://acme.example/agents/ledger', 'yanked', '--revision', '2026-01-06T09:00:00Z', '--message', 'Wrong ledger URL']);
    expect(yanked.code).toBe(0);
    expect(yanked.stdout).toBe('changed: https://acme.example/agents/ledger revision 2026-01-06T09:00:00Z is yanked\n');
    const hidden = await cards(['get', 'https://acme.example/agents/ledger'], { token: null });
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toMatch(/refused \(HTTP 404 NO_VISIBLE_REVISION\)/);
  }, 120_000);

  it('prints every issue of a refused document with its pointer (exit 1), or the problem document with --json', async () => {
    const broken = file('broken.json', card({ id: 'https://acme.example/agents/broken', services: {} }));
    const refused = await cards(['publish', broken]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^trustmesh: cards publish: refused \(HTTP 422 DOCUMENT_INVALID\): .+\n {2}error SERVICES_EMPTY at \/services: .+$/m);
    const asJson = await cards(['publish', '--json', broken]);
    expect(asJson.code).toBe(1);
    expect(asJson.json()).toMatchObject({ status: 422, code: 'DOCUMENT_INVALID', issues: expect.arrayContaining([expect.objectContaining({ code: 'SERVICES_EMPTY', path: '/services' })]) });

    const foreign = await cards(['publish', '--dry-run', file('foreign.json', card({ id: 'https://globex.example/agents/x' }))]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('HTTP 403');
  }, 120_000);

  it('takes the credential from --token-file, refuses to run without one (exit 2), and reports an unreachable registry (exit 1)', async () => {
    const tokenFile = file('token.txt', `${publisherToken}\n`);
    const dry = await cards(['publish', '--dry-run', '--token-file', tokenFile, file('dry.json', card({ id: 'https://acme.example/agents/dry' }))], { token: null });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^valid \(dry run, nothing stored\): https:\/\/acme\.example\/agents\/dry /);

    const missing = await cards(['publish', file('again.json', card())], { token: null });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('set TRUSTMESH_REGISTRY_TOKEN or pass --token-file FILE');
    const unreadable = await cards(['publish', join(dir, 'no-such-file.json')]);
    expect(unreadable.code).toBe(2);
    expect((await cards(['get', 'x', '--dry-run'])).code).toBe(2);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await cards(['get', 'https://acme.example/agents/ledger'], { url: `http://127.0.0.1:${port}` });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`cannot reach the registry at http://127.0.0.1:${port}`);
  }, 120_000);

  it('searches anonymously with filters the registry accepts, and prints the hits', async () => {
    const identifier = 'https://acme.example/agents/reconciler';
    expect((await cards(['publish', file('reconciler.json', card({ id: identifier, name: 'Quarterly reconciler', tags: ['ledger', 'finance'] }))])).code).toBe(0);
    // Search reads the projected read model: it trails a publish by the projection's lag.
    let searched: Run | undefined;
    await waitUntil(
      async () => {
        searched = await cards(['search', 'reconciler', '--kind', 'ai-card', '--tag', 'ledger', '--publisher-domain', 'acme.example', '--limit', '5'], { token: null });
        return searched.code !== 0 || searched.stdout.includes(identifier);
      },
      { timeoutMs: 60_000, what: 'the card to be searchable' },
    );
    expect(searched?.code).toBe(0);
    expect(searched?.stdout).toMatch(new RegExp(`^${identifier.replace(/[./]/g, '\\$&')}  2026-01-06T09:00:00Z  active  Quarterly reconciler$`, 'm'));
    expect(searched?.stdout).toMatch(/^1 hit\(s\)$/m);
    const asJson = await cards(['search', 'reconciler', '--json'], { token: null });
    expect(asJson.json().items).toEqual([expect.objectContaining({ identifier, kind: 'ai-card' })]);
    const refused = await cards(['search', '--limit', '1000'], { token: null });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused \(HTTP 400 LIMIT_INVALID\)/);
  }, 120_000);

  it('crawls a federation source now with the operator credential from --token-file, and the crawled card is served as remote', async () => {
    const operatorFile = file('operator.txt', OPERATOR);
    const added = await rest('POST', '/v1/operator/sources', OPERATOR, { url: site.origin });
    const sourceId = added.sourceId as string;

    const crawled = await cards(['crawl', sourceId, '--json', '--token-file', operatorFile], { token: null });
    expect(crawled.stderr).toBe('');
    expect(crawled.code).toBe(0);
    expect(crawled.json()).toMatchObject({ sourceId, url: `${site.origin}/`, problems: [], stored: [REMOTE_CARD] });
    expect(site.requests.map((request) => request.path)).toEqual(expect.arrayContaining(['/.well-known/ai-catalog.json', '/cards/ledger.json']));
    // The crawl's records reach the read model: the card is listed as remote, with where it came from.
    await waitUntil(
      async () => {
        const response = await fetch(`${registryUrl}/v1/cards/${encodeURIComponent(REMOTE_CARD)}?origin=remote`);
        return response.status === 200 && ((await response.json()) as { mirrors: Array<{ sourceId: string }> }).mirrors.some((mirror) => mirror.sourceId === sourceId);
      },
      { timeoutMs: 60_000, what: 'the crawled card in the read model' },
    );

    // Again, as a person reads it: nothing changed at the source, nothing new stored.
    const again = await cards(['crawl', sourceId, '--token-file', operatorFile], { token: null });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^crawl of ${sourceId} done: \\{.*"sourceId":"${sourceId}".*\\}\n$`));
    expect(JSON.parse(again.stdout.slice(again.stdout.indexOf('{')))).toMatchObject({ sourceId, stored: [], problems: [] });
  }, 120_000);

  it('reports a crawl the registry refuses: an unknown source, a publisher credential (exit 1)', async () => {
    const operatorFile = file('operator-refusals.txt', OPERATOR);
    const unknown = await cards(['crawl', '0123456789abcdef0123456789abcdef', '--token-file', operatorFile], { token: null });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/refused \(HTTP 404 SOURCE_NOT_FOUND\)/);
    // Adding the same URL again answers the source that exists.
    const { sourceId } = (await rest('POST', '/v1/operator/sources', OPERATOR, { url: site.origin })) as { sourceId: string };
    const asPublisher = await cards(['crawl', sourceId]);
    expect(asPublisher.code).toBe(1);
    expect(asPublisher.stderr).toMatch(/refused \(HTTP 403 OPERATOR_ONLY\)/);
  }, 120_000);
});
