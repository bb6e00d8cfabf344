import { CrawlSession } from './crawl.session';
import { DEFAULT_CRAWL_LIMITS, type CrawlFetcher, type CrawlFetchRequest, type CrawlFetchResponse } from './crawl.types';

const ok = (url: string): CrawlFetchResponse => ({ status: 200, url, headers: {}, bytes: new Uint8Array(), notModified: false });

/** A port whose answers the test releases by hand, so "in flight" is observed, not timed. */
function heldFetcher() {
  const held: { url: string; request: CrawlFetchRequest; release: () => void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fetcher: CrawlFetcher = {
    get: (url, request) =>
      new Promise((resolve) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        held.push({ url, request, release: () => (inFlight--, resolve(ok(url))) });
      }),
  };
  return { fetcher, held, maxInFlight: () => maxInFlight };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CrawlSession', () => {
  it('keeps at most `concurrency` fetches in flight and starts the next one as one finishes', async () => {
    const port = heldFetcher();
    const session = new CrawlSession(port.fetcher, { ...DEFAULT_CRAWL_LIMITS, concurrency: 2 }, {});
    const loads = [1, 2, 3, 4, 5].map((n) => session.load(`https://acme.test/${n}`, { conditional: false }));
    await settle();
    expect(port.held.map((call) => call.url)).toEqual(['https://acme.test/1', 'https://acme.test/2']);
    while (port.held.length > 0) {
      const next = port.held.shift();
      next?.release();
      await settle();
    }
    expect((await Promise.all(loads)).every((result) => result.ok)).toBe(true);
    expect(port.maxInFlight()).toBe(2);
    session.close();
  });

  it('fetches a URL once per crawl, but separately when different validators are sent', async () => {
    const calls: CrawlFetchRequest[] = [];
    const fetcher: CrawlFetcher = { get: async (url, request) => (calls.push(request), ok(url)) };
    const remembered = { etag: '"v1"', digest: 'sha-256:00', fetchedAt: '2026-12-01T00:00:00.000Z' };
    const session = new CrawlSession(fetcher, DEFAULT_CRAWL_LIMITS, { 'https://acme.test/c': remembered });
    await session.load('https://acme.test/c', { conditional: true }, remembered);
    await session.load('https://acme.test/c', { conditional: true }, remembered);
    await session.load('https://acme.test/c', { conditional: false });
    expect(calls.map((request) => request.etag)).toEqual(['"v1"', undefined]);
    session.close();
  });

  it('answers CRAWL_DEADLINE for a fetch still running at the deadline and for every fetch after it', async () => {
    const port = heldFetcher();
    const session = new CrawlSession(port.fetcher, { ...DEFAULT_CRAWL_LIMITS, deadlineMs: 20 }, {});
    const stuck = await session.load('https://acme.test/slow', { conditional: false });
    const late = await session.load('https://acme.test/late', { conditional: false });
    expect([stuck, late]).toEqual([
      { ok: false, failure: expect.objectContaining({ error: 'CRAWL_DEADLINE' }) },
      { ok: false, failure: expect.objectContaining({ error: 'CRAWL_DEADLINE' }) },
    ]);
    expect(port.held[0]?.request.signal?.aborted).toBe(true);
    session.close();
  });

  it('turns a port that throws into a FETCH_NETWORK failure instead of losing the crawl', async () => {
    const session = new CrawlSession({ get: () => Promise.reject(new Error('socket hang up at 10.0.0.1')) }, DEFAULT_CRAWL_LIMITS, {});
    const result = await session.load('https://acme.test/x', { conditional: false });
    expect(result).toEqual({ ok: false, failure: { error: 'FETCH_NETWORK', message: 'the fetch failed' } });
    session.close();
  });
});
