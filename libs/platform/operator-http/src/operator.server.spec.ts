import { collectedCounter, createMetricsRegistry } from '@trustmesh/platform-metrics';

import { backboneReadiness } from './backbone-readiness';
import { OperatorServer } from './operator.server';

describe('OperatorServer', () => {
  let ready = true;
  let failing = false;
  const registry = createMetricsRegistry();
  collectedCounter(registry, { name: 'requests_total', help: 'Requests.', collect: () => [{ value: 3 }] });
  const server = new OperatorServer({
    registry,
    readiness: async () => {
      if (failing) throw new Error('internal: connection string postgres://secret@db');
      return ready ? { status: 200, body: { status: 'ready' } } : { status: 503, body: { status: 'not-ready', checks: { database: 'down' } } };
    },
    headers: { 'X-Content-Type-Options': 'nosniff' },
  });
  let base: string;

  beforeAll(async () => {
    base = await server.listen('127.0.0.1', 0);
  });
  afterAll(() => server.close());

  it('serves metrics, liveness and readiness, with the app headers and nothing cached', async () => {
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    expect(metrics.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await metrics.text();
    expect(text).toContain('\nrequests_total 3\n');
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    const health = await fetch(`${base}/healthz`);
    expect([health.status, await health.json(), health.headers.get('cache-control')]).toEqual([200, { status: 'ok' }, 'no-store']);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready' });
  });

  it('answers 503 when not ready, and says nothing of a readiness check that threw', async () => {
    ready = false;
    const notReady = await fetch(`${base}/readyz`);
    expect([notReady.status, await notReady.json()]).toEqual([503, { status: 'not-ready', checks: { database: 'down' } }]);
    failing = true;
    const threw = await fetch(`${base}/readyz`);
    expect([threw.status, await threw.text()]).toEqual([503, '{"status":"not-ready"}']);
    failing = false;
    ready = true;
  });

  it('refuses other methods and paths with stable codes', async () => {
    const post = await fetch(`${base}/metrics`, { method: 'POST', body: 'x' });
    expect([post.status, await post.json()]).toEqual([405, { code: 'METHOD_NOT_ALLOWED' }]);
    const missing = await fetch(`${base}/admin`);
    expect([missing.status, await missing.json()]).toEqual([404, { code: 'NOT_FOUND' }]);
  });
});

describe('backboneReadiness', () => {
  const database = (fails: boolean) => ({ withConnection: async () => (fails ? Promise.reject(new Error('ECONNREFUSED 10.0.0.5')) : []) }) as never;

  it('is ready when the database answers and the bus is ready, and names the failing check otherwise', async () => {
    expect(await backboneReadiness({ database: database(false), bus: { health: async () => ({ adapter: 'local', ready: true }) } })).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: 'ok', bus: 'ok' } },
    });
    expect(await backboneReadiness({ database: database(true), bus: { health: async () => ({ adapter: 'kafka', ready: false, reason: 'BROKER_UNREACHABLE' }) } })).toEqual({
      status: 503,
      body: { status: 'not-ready', checks: { database: 'unavailable', bus: 'BROKER_UNREACHABLE' } },
    });
  });
});
