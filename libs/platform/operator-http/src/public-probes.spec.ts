import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { TokenBucketRateLimiter, TrustedProxies } from '@trustmesh/platform-rate-limits';

import type { ReadinessAnswer } from './operator.server';
import { cachedReadiness, PublicProbes } from './public-probes';

const READY: ReadinessAnswer = { status: 200, body: { status: 'ready' } };

describe('cachedReadiness', () => {
  it('runs one check for every caller while it runs and reuses its answer until it is older than maxAgeMs', async () => {
    let clock = 0;
    let checks = 0;
    let release: (answer: ReadinessAnswer) => void = () => undefined;
    const readiness = cachedReadiness(
      () => {
        checks += 1;
        return new Promise<ReadinessAnswer>((resolve) => (release = resolve));
      },
      { maxAgeMs: 1_000, now: () => clock },
    );
    const waiting = Array.from({ length: 50 }, () => readiness());
    release(READY);
    expect(await Promise.all(waiting)).toEqual(Array(50).fill(READY));
    clock = 999;
    expect(await readiness()).toEqual(READY);
    expect(checks).toBe(1);
    clock = 1_000;
    const next = readiness();
    release({ status: 503, body: { status: 'not-ready' } });
    expect((await next).status).toBe(503);
    expect(checks).toBe(2);
  });

  it('answers a check that throws as not ready, without its text, and checks again later', async () => {
    let clock = 0;
    let fail = true;
    const readiness = cachedReadiness(async () => {
      if (fail) throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
      return READY;
    }, { now: () => clock });
    expect(await readiness()).toEqual({ status: 503, body: { status: 'not-ready' } });
    fail = false;
    clock = 5_000;
    expect(await readiness()).toEqual(READY);
  });
});

describe('PublicProbes', () => {
  let server: Server;
  let base: string;
  let checks = 0;

  beforeAll(async () => {
    const probes = new PublicProbes({
      readiness: cachedReadiness(async () => {
        checks += 1;
        return READY;
      }),
      trustedProxies: TrustedProxies.parse('127.0.0.1').proxies,
      limiter: new TokenBucketRateLimiter({ capacity: 3, refillPerSecond: 0.01 }),
    });
    server = createServer((request, response) => void probes.answer(request.url === '/healthz' ? 'healthz' : 'readyz', request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const probe = (path: string, from: string) => fetch(`${base}${path}`, { headers: { 'x-forwarded-for': from } });

  it('answers each source its probes up to its limit, then 429 RATE_LIMITED with Retry-After to that source only', async () => {
    for (const path of ['/healthz', '/readyz', '/readyz']) expect((await probe(path, '203.0.113.7')).status).toBe(200);
    const refused = await probe('/healthz', '203.0.113.7');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    // Another source (the kubelet on its node address) is not touched by the first one's flood.
    const other = await probe('/readyz', '198.51.100.20');
    expect([other.status, await other.json(), other.headers.get('cache-control')]).toEqual([200, { status: 'ready' }, 'no-store']);
    // Every /readyz within the reuse window was answered by one check.
    expect(checks).toBe(1);
  });
});
