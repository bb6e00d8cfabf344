/**
 * `trustmesh cards verify` as a user runs it: the real bin, in a child process, on documents signed here with
 * fresh keys and a --resolve map standing in for the signers' DID documents.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { didWebDocument, generateSigningKey, signA2aCard, signAiCard, signCatalog } from '@trustmesh/cards-signatures/testing';

import { networkResolver } from '../src/cards-verify.command';

const workspaceRoot = join(__dirname, '..', '..', '..');
const bin = join(workspaceRoot, 'bin', 'trustmesh.js');

let dir: string;
let resolveMap: string;
let signedCard: Record<string, unknown>;
let signedCatalog: Record<string, unknown>;
let signedA2a: Record<string, unknown>;

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function trustmesh(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [bin, ...args], { cwd: dir, input, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trustmesh-cards-'));
  const key = await generateSigningKey({ signer: 'did:web:acme.example', fragment: 'k1' });
  const agentKey = await generateSigningKey({ signer: 'did:web:agents.acme.example', fragment: 'a2a' });
  resolveMap = file('resolve.json', {
    'https://acme.example/.well-known/did.json': didWebDocument('did:web:acme.example', [key]),
    'https://agents.acme.example/.well-known/did.json': didWebDocument('did:web:agents.acme.example', [agentKey]),
  });
  signedCard = await signAiCard(
    {
      $schema: 'https://example.org/ai-card/v1/schema.json',
      specVersion: '1.0',
      id: 'did:web:acme.example',
      name: 'Acme Finance',
      description: 'Invoices.',
      publisher: { id: 'did:web:acme.example', name: 'Acme' },
      services: { a2a: { type: 'a2a', name: 'A2A', protocolSpecific: {} } },
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-02T00:00:00Z',
    },
    key,
  );
  signedCatalog = await signCatalog({ specVersion: '1.0', host: { displayName: 'Acme', identifier: 'did:web:acme.example' }, entries: [] }, key, { issuedAt: '2026-01-01T00:00:00Z' });
  signedA2a = await signA2aCard(
    {
      name: 'Planner',
      description: 'Plans.',
      url: 'https://agents.acme.example/a2a',
      version: '1.0.0',
      protocolVersion: '0.3.0',
      capabilities: { streaming: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    },
    agentKey,
    { header: { kid: 'a2a' } },
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('trustmesh cards verify', () => {
  it('verifies a v1 card, a catalog and an A2A card against the --resolve map (exit 0, one JSON array)', () => {
    const files = [file('card.json', signedCard), file('catalog.json', signedCatalog), file('a2a.json', signedA2a)];
    const result = trustmesh(['cards', 'verify', '--resolve', resolveMap, '--json', ...files]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { file: files[0], verified: true, signer: 'did:web:acme.example', kid: 'did:web:acme.example#k1', alg: 'ES256' },
      { file: files[1], verified: true, signer: 'did:web:acme.example', kid: 'did:web:acme.example#k1', alg: 'ES256' },
      { file: files[2], verified: true, signer: 'did:web:agents.acme.example', kid: 'did:web:agents.acme.example#a2a', alg: 'ES256' },
    ]);
  });

  it('exits 1 when any document fails, naming its code (and readable lines without --json)', () => {
    const tampered = file('tampered.json', { ...signedCard, name: 'Acme Finance!' });
    const json = trustmesh(['cards', 'verify', '--resolve', resolveMap, '--json', file('ok.json', signedCard), tampered]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)[1]).toEqual({ file: tampered, verified: false, code: 'SIGNATURE_INVALID', signer: 'did:web:acme.example', kid: 'did:web:acme.example#k1' });
    const human = trustmesh(['cards', 'verify', '--resolve', resolveMap, tampered]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^failed +.*tampered\.json: SIGNATURE_INVALID at \/signature: /);
  });

  it('refuses a key missing from the map, a duplicate key, and a document of no known kind', () => {
    const emptyMap = file('empty-map.json', {});
    const duplicate = file('dup.json', '{"specVersion":"1.0","services":{},"name":"a","name":"b"}');
    const unknown = file('unknown.json', { hello: 'world' });
    const result = trustmesh(['cards', 'verify', '--resolve', emptyMap, '--json', file('card2.json', signedCard), duplicate, unknown]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).map((line: { code?: string }) => line.code)).toEqual(['KEY_DOCUMENT_UNAVAILABLE', 'JSON_DUPLICATE_KEY', 'DOCUMENT_KIND_UNKNOWN']);
  });

  it('reads a document from stdin with -', () => {
    const result = trustmesh(['cards', 'verify', '--resolve', resolveMap, '--json', '-'], JSON.stringify(signedCard));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([expect.objectContaining({ file: '-', verified: true })]);
  });

  it('exits 2 on usage errors: no FILE, a bad --resolve map, an unreadable file', () => {
    expect(trustmesh(['cards', 'verify']).code).toBe(2);
    expect(trustmesh(['cards', 'verify', '--resolve', file('bad-map.json', '[1]'), file('c3.json', signedCard)]).code).toBe(2);
    expect(trustmesh(['cards', 'verify', '--resolve', join(dir, 'missing-map.json'), file('c4.json', signedCard)]).code).toBe(2);
    const missing = trustmesh(['cards', 'verify', '--resolve', resolveMap, '--json', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)[0]).toMatchObject({ verified: false, code: 'FILE_UNREADABLE' });
  });
});

describe('the network resolver (SafeFetcher)', () => {
  it('refuses non-https URLs and loopback or private addresses without fetching', async () => {
    for (const url of ['http://acme.example/.well-known/did.json', 'https://127.0.0.1/.well-known/did.json', 'https://[::1]/x', 'https://10.1.2.3/x', 'https://169.254.169.254/latest', 'https://localhost/.well-known/did.json', 'not a url']) {
      await expect(networkResolver(url)).resolves.toBeUndefined();
    }
  });
});
