import { createTestCa, lookupFromMap, startHttpsServer, admitLoopbackForTests, type TestCa, type TestHttpsServer } from './testing';
import { SafeFetcher } from './safe-fetcher';
import type { LookupAll, SafeFetchOutcome } from './safe-fetch.types';

function errorOf(outcome: SafeFetchOutcome) {
  if (outcome.ok) throw new Error(`expected a refusal, got HTTP ${outcome.response.status}`);
  return outcome.error;
}
function responseOf(outcome: SafeFetchOutcome) {
  if (!outcome.ok) throw new Error(`expected a response, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.response;
}

describe('SafeFetcher over real HTTPS', () => {
  let ca: TestCa;
  let server: TestHttpsServer;
  let fetcher: SafeFetcher;
  const lookup = lookupFromMap({ 'acme.test': '127.0.0.1', 'evil.test': '10.0.0.1', 'mixed.test': ['93.184.216.34', '127.0.0.1'], 'mapped.test': '::ffff:10.0.0.1', 'ula.test': 'fd00::1' });

  beforeAll(async () => {
    ca = await createTestCa();
    server = await startHttpsServer(
      {
        '/card.json': { headers: { 'content-type': 'application/json', etag: '"v1"', 'last-modified': 'Wed, 02 Dec 2026 10:00:00 GMT' }, body: '{"id":"x"}' },
        '/conditional': (req) => (req.headers['if-none-match'] === '"v1"' ? { status: 304, headers: { etag: '"v1"' } } : { headers: { etag: '"v1"' }, body: 'fresh' }),
        '/missing': { status: 404, body: 'no' },
        '/to-card': { status: 302, headers: { location: '/card.json' } },
        '/to-private': { status: 302, headers: { location: 'https://evil.test/card.json' } },
        '/to-http': { status: 301, headers: { location: 'http://acme.test/card.json' } },
        '/to-metadata-ip': { status: 307, headers: { location: 'https://169.254.169.254/latest/meta-data/' } },
        '/loop': { status: 302, headers: { location: '/loop' } },
        '/redirect-endless-body': { status: 302, headers: { location: '/card.json' }, endless: true, chunks: ['r'.repeat(1024)], chunkDelayMs: 1 },
        '/big-declared': { headers: { 'content-length': '5000' }, body: 'y'.repeat(5000) },
        '/big-streamed': { chunks: ['a'.repeat(600), 'b'.repeat(600)], chunkDelayMs: 5 },
        '/endless': { endless: true, chunks: ['z'.repeat(1024)], chunkDelayMs: 1 },
        '/slow-loris': { chunks: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'], chunkDelayMs: 400 },
        '/slow-head': { headDelayMs: 3000, body: 'late' },
        '/ten-bytes': { body: '0123456789' },
      },
      { ca },
    );
    fetcher = new SafeFetcher({ lookup, ca: ca.cert, admitAddressForTests: admitLoopbackForTests });
  });
  afterAll(() => server.close());

  const at = (path: string): string => `${server.origin}${path}`;

  it('returns status, final URL, headers, the exact bytes and validators', async () => {
    const response = responseOf(await fetcher.fetch(at('/card.json')));
    expect(response.status).toBe(200);
    expect(response.url).toBe(at('/card.json'));
    expect(Buffer.from(response.bytes).toString('utf8')).toBe('{"id":"x"}');
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.etag).toBe('"v1"');
    expect(response.lastModified).toBe('Wed, 02 Dec 2026 10:00:00 GMT');
    expect(response.notModified).toBe(false);
  });

  it('sends Host with the host name while connecting to the pinned address', async () => {
    await fetcher.fetch(at('/card.json'));
    const last = server.requests[server.requests.length - 1]!;
    expect(last.headers.host).toBe(`acme.test:${server.port}`);
  });

  it('refuses loopback unless the test admission is given explicitly', async () => {
    const before = server.requests.length;
    const strict = new SafeFetcher({ lookup, ca: ca.cert });
    const error = errorOf(await strict.fetch(at('/card.json'), { pointer: '/entries/0/url' }));
    expect(error).toMatchObject({ code: 'FETCH_ADDRESS_REFUSED', address: '127.0.0.1', addressClass: 'loopback', pointer: '/entries/0/url' });
    expect(server.requests.length).toBe(before);
  });

  it.each(['https://0x7f.1/', 'https://2130706433/', 'https://[::ffff:127.0.0.1]/', 'https://[::1]/', 'https://169.254.169.254/', 'https://[fd00:ec2::254]/'])(
    'refuses the IP literal %s without asking DNS',
    async (url) => {
      const calls: string[] = [];
      const spy: LookupAll = async (host) => {
        calls.push(host);
        return [];
      };
      const error = errorOf(await new SafeFetcher({ lookup: spy }).fetch(url));
      expect(error.code).toBe('FETCH_ADDRESS_REFUSED');
      expect(calls).toEqual([]);
    },
  );

  it('refuses a host when any of its DNS answers is not public', async () => {
    const error = errorOf(await new SafeFetcher({ lookup }).fetch('https://mixed.test/'));
    expect(error).toMatchObject({ code: 'FETCH_ADDRESS_REFUSED', addressClass: 'loopback' });
  });

  it.each([
    ['https://mapped.test/', 'private'],
    ['https://ula.test/', 'private'],
  ])('refuses %s, whose IPv6 answer is %s', async (url, addressClass) => {
    expect(errorOf(await fetcher.fetch(url))).toMatchObject({ code: 'FETCH_ADDRESS_REFUSED', addressClass });
  });

  it('serves with a fresh CA when none is given, and a fetcher trusting it connects', async () => {
    const own = await startHttpsServer({ '/': { body: 'own' } });
    try {
      const trusting = new SafeFetcher({ lookup, ca: own.ca.cert, admitAddressForTests: admitLoopbackForTests });
      expect(Buffer.from(responseOf(await trusting.fetch(`${own.origin}/`)).bytes).toString()).toBe('own');
    } finally {
      await own.close();
    }
  });

  it.each([
    ['http://acme.test/card.json', 'FETCH_SCHEME_REFUSED'],
    ['ftp://acme.test/card.json', 'FETCH_SCHEME_REFUSED'],
    ['file:///etc/passwd', 'FETCH_SCHEME_REFUSED'],
    ['not a url', 'FETCH_URL_INVALID'],
    ['https://user:pw@acme.test/', 'FETCH_URL_INVALID'],
    ['https://unknown.test/', 'FETCH_DNS'],
  ])('refuses %s with %s', async (url, code) => {
    expect(errorOf(await fetcher.fetch(url)).code).toBe(code);
  });

  it('follows a redirect and reports the final URL', async () => {
    const response = responseOf(await fetcher.fetch(at('/to-card')));
    expect(response.url).toBe(at('/card.json'));
    expect(Buffer.from(response.bytes).toString('utf8')).toBe('{"id":"x"}');
  });

  it('does not read the body of a redirect (a hostile endless body cannot stall the fetch)', async () => {
    const response = responseOf(await fetcher.fetch(at('/redirect-endless-body')));
    expect(response.url).toBe(at('/card.json'));
  });

  it('re-checks the address after a redirect: a hop to a private address is refused', async () => {
    const error = errorOf(await fetcher.fetch(at('/to-private')));
    expect(error).toMatchObject({ code: 'FETCH_ADDRESS_REFUSED', url: 'https://evil.test/card.json', address: '10.0.0.1', addressClass: 'private' });
  });

  it('re-checks the scheme and metadata addresses after a redirect', async () => {
    expect(errorOf(await fetcher.fetch(at('/to-http'))).code).toBe('FETCH_SCHEME_REFUSED');
    expect(errorOf(await fetcher.fetch(at('/to-metadata-ip')))).toMatchObject({ code: 'FETCH_ADDRESS_REFUSED', addressClass: 'metadata' });
  });

  it('stops a redirect loop after maxRedirects', async () => {
    const before = server.requests.length;
    expect(errorOf(await fetcher.fetch(at('/loop'))).code).toBe('FETCH_TOO_MANY_REDIRECTS');
    expect(server.requests.length - before).toBe(6);
  });

  it('refuses any redirect when maxRedirects is 0', async () => {
    expect(errorOf(await fetcher.fetch(at('/to-card'), { maxRedirects: 0 }))).toMatchObject({ code: 'FETCH_REDIRECT_REFUSED', status: 302 });
  });

  it('refuses a body whose declared length passes the cap', async () => {
    expect(errorOf(await fetcher.fetch(at('/big-declared'), { maxBytes: 4096 })).code).toBe('FETCH_TOO_LARGE');
  });

  it('aborts mid-stream once the body passes the cap', async () => {
    expect(errorOf(await fetcher.fetch(at('/big-streamed'), { maxBytes: 1000 })).code).toBe('FETCH_TOO_LARGE');
    expect(errorOf(await fetcher.fetch(at('/endless'), { maxBytes: 64 * 1024 })).code).toBe('FETCH_TOO_LARGE');
  });

  it('honours an expected size: larger is too large, different is a mismatch, equal passes', async () => {
    expect(errorOf(await fetcher.fetch(at('/ten-bytes'), { expectedSize: 4 })).code).toBe('FETCH_TOO_LARGE');
    expect(errorOf(await fetcher.fetch(at('/ten-bytes'), { expectedSize: 12 })).code).toBe('FETCH_SIZE_MISMATCH');
    expect(responseOf(await fetcher.fetch(at('/ten-bytes'), { expectedSize: 10 })).bytes.length).toBe(10);
  });

  it('times out a body that dribbles in (slow loris)', async () => {
    expect(errorOf(await fetcher.fetch(at('/slow-loris'), { timeoutMs: 600 })).code).toBe('FETCH_TIMEOUT');
  });

  it('times out a server that never sends its response head', async () => {
    expect(errorOf(await fetcher.fetch(at('/slow-head'), { headerTimeoutMs: 200 })).code).toBe('FETCH_HEADER_TIMEOUT');
  });

  it('reports a caller cancellation as aborted', async () => {
    const controller = new AbortController();
    const pending = fetcher.fetch(at('/slow-head'), { signal: controller.signal });
    controller.abort();
    expect(errorOf(await pending).code).toBe('FETCH_ABORTED');
  });

  it('sends conditional headers and reports 304 as notModified with no body', async () => {
    const response = responseOf(await fetcher.fetch(at('/conditional'), { ifNoneMatch: '"v1"' }));
    expect(response).toMatchObject({ status: 304, notModified: true, etag: '"v1"' });
    expect(response.bytes.length).toBe(0);
    const fresh = responseOf(await fetcher.fetch(at('/conditional'), { ifNoneMatch: '"v0"' }));
    expect(fresh.notModified).toBe(false);
    expect(Buffer.from(fresh.bytes).toString()).toBe('fresh');
  });

  it('reports a non-2xx status with its code', async () => {
    expect(errorOf(await fetcher.fetch(at('/missing')))).toMatchObject({ code: 'FETCH_HTTP_STATUS', status: 404 });
  });

  it('refuses a certificate from a CA it does not trust', async () => {
    const otherCa = await createTestCa('Someone Else CA');
    const untrusting = new SafeFetcher({ lookup, ca: otherCa.cert, admitAddressForTests: admitLoopbackForTests });
    expect(errorOf(await untrusting.fetch(at('/card.json'))).code).toBe('FETCH_TLS');
  });

  it('refuses a certificate for another host name', async () => {
    const wrongName = new SafeFetcher({ lookup: lookupFromMap({ 'other.test': '127.0.0.1' }), ca: ca.cert, admitAddressForTests: admitLoopbackForTests });
    expect(errorOf(await wrongName.fetch(`https://other.test:${server.port}/card.json`)).code).toBe('FETCH_TLS');
  });

  it('resolves once per hop and connects to that answer (no DNS rebinding)', async () => {
    const answers = ['127.0.0.1', '10.0.0.1'];
    let calls = 0;
    const rebinding: LookupAll = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
    const pinned = new SafeFetcher({ lookup: rebinding, ca: ca.cert, admitAddressForTests: admitLoopbackForTests });
    const response = responseOf(await pinned.fetch(at('/card.json')));
    expect(response.address).toBe('127.0.0.1');
    expect(calls).toBe(1);
  });
});
