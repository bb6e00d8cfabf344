/**
 * The registry's probes and start-up lines as an operator meets them (one registry, embedded PGlite, at
 * LOG_LEVEL=info as deployed):
 * - on the public port each source address has a generous probe allowance of its own: a client that
 *   hammers /healthz and /readyz gets 429 RATE_LIMITED + Retry-After, while another source (the kubelet,
 *   the balancer) and the unpublished operator port are answered all along;
 * - the probes do not take from a client's read allowance, nor it from theirs;
 * - a start writes its real lines at info (Nest started, `card registry listening`) and not Nest's
 *   inventory of modules and mapped routes.
 */
import { startRegistryApp, type RegistryApp } from './support/registry-app.fixture';

const HAMMER = 200;

describe('card registry: probes and start-up lines', () => {
  let app: RegistryApp;

  beforeAll(async () => {
    app = await startRegistryApp({
      LOG_LEVEL: 'info',
      // The test's client connects from 127.0.0.1: a trusted proxy here, so X-Forwarded-For names each source.
      REGISTRY_TRUSTED_PROXIES: '127.0.0.1',
      REGISTRY_RATE_READS_PER_MINUTE: '5',
    });
  });
  afterAll(() => app?.close());

  const probe = (base: string, path: string, from?: string) => fetch(`${base}${path}`, from ? { headers: { 'x-forwarded-for': from } } : {});

  it('limits a source that hammers the public probes, and only that source', async () => {
    const flood = await Promise.all(Array.from({ length: HAMMER }, (_, i) => probe(app.handle.httpUrl, i % 2 === 0 ? '/healthz' : '/readyz', '203.0.113.9')));
    const refused = flood.filter((reply) => reply.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(flood.every((reply) => reply.status === 200 || reply.status === 429)).toBe(true);
    for (const reply of refused) expect(reply.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await refused[0]!.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED' });

    // The kubelet, from its node's address, is answered meanwhile; so is every probe on the operator port.
    const kubelet = await probe(app.handle.httpUrl, '/readyz', '10.1.2.3');
    expect([kubelet.status, await kubelet.json()]).toEqual([200, { status: 'ready', checks: { database: 'ok', bus: 'ok' } }]);
    const operator = await Promise.all(Array.from({ length: HAMMER }, (_, i) => probe(app.handle.operatorUrl!, i % 2 === 0 ? '/healthz' : '/readyz')));
    expect(operator.every((reply) => reply.status === 200)).toBe(true);
  });

  it('keeps probes and reads in allowances of their own', async () => {
    const from = '198.51.100.77';
    for (let i = 0; i < 5; i += 1) expect((await probe(app.handle.httpUrl, '/v1/search', from)).status).toBe(200);
    expect((await probe(app.handle.httpUrl, '/v1/search', from)).status).toBe(429);
    // Reads spent: the same source's probes are still answered.
    expect((await probe(app.handle.httpUrl, '/readyz', from)).status).toBe(200);
  });

  it('starts with its real lines at info and without Nest route mapping', () => {
    const lines = app.logs.map((line) => JSON.parse(line) as { level: string; msg: string; context?: string });
    expect(lines.some((line) => line.msg === 'card registry listening' && line.level === 'info')).toBe(true);
    expect(lines.some((line) => line.msg === 'Nest application successfully started')).toBe(true);
    expect(lines.filter((line) => /^Mapped \{|dependencies initialized|Controller \{/.test(line.msg))).toEqual([]);
  });
});
