import { createHash } from 'node:crypto';

import { jsonDocumentFetch, jsonDocumentResolver } from './json-document.resolver';
import { SafeFetcher } from './safe-fetcher';
import { admitLoopbackForTests, createTestCa, lookupFromMap, startHttpsServer, type TestCa, type TestHttpsServer } from './testing';

describe('jsonDocumentResolver over SafeFetcher', () => {
  let ca: TestCa;
  let server: TestHttpsServer;
  let fetcher: SafeFetcher;
  let version = 1;
  const lookup = lookupFromMap({ 'acme.test': '127.0.0.1', 'evil.test': '10.0.0.1' });

  beforeAll(async () => {
    ca = await createTestCa();
    server = await startHttpsServer(
      {
        '/.well-known/did.json': { headers: { 'content-type': 'application/did+json' }, body: '{"id":"did:web:acme.test","verificationMethod":[{"id":"#k1"}]}' },
        '/changing.json': () => ({ body: JSON.stringify({ version }) }),
        '/duplicate.json': { body: '{"id":"a","id":"b"}' },
        '/unsafe-int.json': { body: '{"n":9007199254740993}' },
        '/not-json.json': { body: '<html>' },
        '/not-utf8.json': { body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) },
        '/big.json': { body: `{"pad":"${'x'.repeat(3000)}"}` },
        '/missing.json': { status: 404, body: '{}' },
        '/to-private': { status: 302, headers: { location: 'https://evil.test/.well-known/did.json' } },
      },
      { ca },
    );
    fetcher = new SafeFetcher({ lookup, ca: ca.cert, admitAddressForTests: admitLoopbackForTests });
  });
  afterAll(() => server.close());

  const at = (path: string): string => `${server.origin}${path}`;

  it('returns the parsed document', async () => {
    const resolve = jsonDocumentResolver(fetcher);
    expect(await resolve(at('/.well-known/did.json'))).toEqual({ id: 'did:web:acme.test', verificationMethod: [{ id: '#k1' }] });
  });

  it('is undefined for duplicate keys, unsafe integers, non-JSON, non-UTF-8, oversize and HTTP errors', async () => {
    const resolve = jsonDocumentResolver(fetcher, { maxBytes: 2048 });
    for (const path of ['/duplicate.json', '/unsafe-int.json', '/not-json.json', '/not-utf8.json', '/big.json', '/missing.json']) {
      expect([path, await resolve(at(path))]).toEqual([path, undefined]);
    }
  });

  it('is undefined for private addresses, also behind a redirect, and for non-https URLs', async () => {
    const resolve = jsonDocumentResolver(fetcher);
    expect(await resolve('https://evil.test/.well-known/did.json')).toBeUndefined();
    expect(await resolve(at('/to-private'))).toBeUndefined();
    expect(await resolve('http://acme.test/.well-known/did.json')).toBeUndefined();
    expect(await resolve('not a url')).toBeUndefined();
  });

  it('refuses the loopback test server itself when the fetcher does not admit it', async () => {
    const strict = jsonDocumentResolver(new SafeFetcher({ lookup, ca: ca.cert }));
    expect(await strict(at('/.well-known/did.json'))).toBeUndefined();
  });

  it('with jsonDocumentFetch, gives the SHA-256 of the exact bytes, and a changed document a new digest', async () => {
    const fetch = jsonDocumentFetch(fetcher);
    const body = '{"id":"did:web:acme.test","verificationMethod":[{"id":"#k1"}]}';
    expect(await fetch(at('/.well-known/did.json'))).toEqual({ ok: true, document: JSON.parse(body), digest: `sha256:${createHash('sha256').update(body).digest('hex')}` });
    version = 1;
    const before = await fetch(at('/changing.json'));
    version = 2;
    const after = await fetch(at('/changing.json'));
    expect(before.ok && after.ok && before.digest !== after.digest).toBe(true);
  });

  it('with jsonDocumentFetch, names why a document could not be had', async () => {
    const fetch = jsonDocumentFetch(fetcher, { maxBytes: 2048 });
    const codes = [];
    for (const path of ['/duplicate.json', '/not-json.json', '/not-utf8.json', '/big.json', '/missing.json']) codes.push([path, await fetch(at(path))]);
    expect(codes).toEqual([
      ['/duplicate.json', { ok: false, code: 'KEY_DOCUMENT_NOT_JSON' }],
      ['/not-json.json', { ok: false, code: 'KEY_DOCUMENT_NOT_JSON' }],
      ['/not-utf8.json', { ok: false, code: 'KEY_DOCUMENT_NOT_UTF8' }],
      ['/big.json', { ok: false, code: 'FETCH_TOO_LARGE' }],
      ['/missing.json', { ok: false, code: 'FETCH_HTTP_STATUS' }],
    ]);
    expect(await fetch('https://evil.test/.well-known/did.json')).toEqual({ ok: false, code: 'FETCH_ADDRESS_REFUSED' });
  });

  it('hands out frozen documents, so one caller cannot alter what the next verifies with', async () => {
    const document = (await jsonDocumentResolver(fetcher)(at('/.well-known/did.json'))) as Record<string, unknown>;
    expect(() => {
      document['id'] = 'did:web:evil.test';
    }).toThrow(TypeError);
  });

  describe('with a cache', () => {
    const countRequests = (path: string) => server.requests.filter((request) => request.path === path).length;

    it('fetches a document once per TTL, sees a change after the TTL, and shares one fetch between concurrent callers', async () => {
      let clock = 1_000_000;
      const resolve = jsonDocumentResolver(fetcher, { cache: { ttlMs: 60_000, maxEntries: 10, now: () => clock } });
      const before = countRequests('/changing.json');
      version = 1;
      const concurrent = await Promise.all([resolve(at('/changing.json')), resolve(at('/changing.json')), resolve(at('/changing.json'))]);
      expect(concurrent).toEqual([{ version: 1 }, { version: 1 }, { version: 1 }]);
      version = 2;
      clock += 59_999;
      expect(await resolve(at('/changing.json'))).toEqual({ version: 1 });
      expect(countRequests('/changing.json') - before).toBe(1);
      clock += 1;
      expect(await resolve(at('/changing.json'))).toEqual({ version: 2 });
      expect(countRequests('/changing.json') - before).toBe(2);
    });

    it('does not remember failures', async () => {
      const resolve = jsonDocumentResolver(fetcher, { cache: { ttlMs: 60_000, maxEntries: 10 } });
      const before = countRequests('/missing.json');
      expect(await resolve(at('/missing.json'))).toBeUndefined();
      expect(await resolve(at('/missing.json'))).toBeUndefined();
      expect(countRequests('/missing.json') - before).toBe(2);
    });

    it('keeps at most maxEntries documents, dropping the oldest', async () => {
      const resolve = jsonDocumentResolver(fetcher, { cache: { ttlMs: 60_000, maxEntries: 1 } });
      const before = countRequests('/.well-known/did.json');
      await resolve(at('/.well-known/did.json'));
      await resolve(at('/changing.json'));
      await resolve(at('/.well-known/did.json'));
      expect(countRequests('/.well-known/did.json') - before).toBe(2);
    });
  });
});
