import { collectedCounter, collectedGauge, createMetricsRegistry } from './index';

describe('an app metrics registry', () => {
  it("serves prom-client's default process metrics", async () => {
    const text = await createMetricsRegistry().metrics();
    for (const family of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(text).toContain(`# TYPE ${family} `);
    }
  });

  it('keeps each registry to its own families, so two apps in one process serve their own', async () => {
    const first = createMetricsRegistry();
    const second = createMetricsRegistry();
    collectedGauge(first, { name: 'only_in_first', help: 'h', collect: () => [{ value: 1 }] });
    expect(await first.metrics()).toContain('only_in_first 1');
    expect(await second.metrics()).not.toContain('only_in_first');
  });

  it('reads collected gauges and counters when scraped, with their labels', async () => {
    const registry = createMetricsRegistry();
    let lag = 3;
    collectedGauge(registry, { name: 'lag_messages', help: 'Lag.', labelNames: ['topic', 'partition'], collect: () => [{ labels: { topic: 't', partition: 0 }, value: lag }] });
    collectedCounter(registry, { name: 'bumps_total', help: 'Bumps.', labelNames: ['code'], collect: async () => [{ labels: { code: 'A' }, value: 5 }] });
    expect(await registry.metrics()).toContain('lag_messages{topic="t",partition="0"} 3');
    lag = 0;
    const text = await registry.metrics();
    expect(text).toContain('lag_messages{topic="t",partition="0"} 0');
    expect(text).toContain('# TYPE bumps_total counter\nbumps_total{code="A"} 5');
  });

  it('leaves a family without series when its reading fails or never answers, and the scrape still succeeds', async () => {
    const registry = createMetricsRegistry();
    collectedGauge(registry, { name: 'failing', help: 'F.', collect: () => Promise.reject(new Error('database unreachable')) });
    collectedGauge(registry, { name: 'hanging', help: 'H.', timeoutMs: 10, collect: () => new Promise(() => undefined) });
    collectedGauge(registry, { name: 'working', help: 'W.', collect: () => [{ value: 7 }] });
    const text = await registry.metrics();
    expect(text).toContain('working 7');
    expect(text).not.toMatch(/^failing /m);
    expect(text).not.toMatch(/^hanging /m);
    expect(text).not.toContain('database unreachable');
  });
});
