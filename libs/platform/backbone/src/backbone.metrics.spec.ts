// The backbone's lags as an operator scrapes them, on an embedded database with the local bus: events appended
// and not yet published show in the outbox backlog; published and not yet consumed, in the consumer lag; the
// projection's lag is 0 once it applied them, and the consumer's once it went on.
import { loadPlatformConfig } from '@trustmesh/platform-config';
import type { SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';
import { SILENT_LOGGER } from '@trustmesh/platform-logging';
import { createMetricsRegistry } from '@trustmesh/platform-metrics';
import type { ProjectionDefinition } from '@trustmesh/platform-projections';
import { waitUntil } from '@trustmesh/platform-testing';

import { openAppBackbone } from './app-backbone';
import { registerBackboneMetrics } from './backbone.metrics';

const TOPIC = 'backbone-metrics.items.v1';

const readModel: ProjectionDefinition<SqlExecutor> = { name: 'backbone-metrics', version: 1, topics: [TOPIC], apply: async () => undefined };

/** The sum of a family's series in the exposition text; undefined when it has none. */
function total(text: string, family: string): number | undefined {
  const values = text
    .split('\n')
    .filter((line) => line.startsWith(`${family} `) || line.startsWith(`${family}{`))
    .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0);
}

describe('registerBackboneMetrics', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('pglite', 'backbone-metrics');
  }, 60_000);
  afterAll(() => database?.dispose());

  it('reports the outbox backlog, then the lag of a consumer that holds a message, then 0 once caught up', async () => {
    const backbone = await openAppBackbone({ platform: { ...loadPlatformConfig({}), database: database.config }, producer: 'backbone-metrics@0.0.0' }, SILENT_LOGGER, {
      migrations: [],
      defaultTopic: TOPIC,
      projections: [readModel],
      openClient: () => ({ $disconnect: async () => undefined }),
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      const registry = createMetricsRegistry();
      registerBackboneMetrics(registry, { bus: backbone.bus, store: backbone.store, projections: backbone.projections });
      const scrape = () => registry.metrics();
      // A consumer of its own that holds the first message it gets (outside any database transaction, so the
      // embedded database's one connection stays free for the scrape).
      await backbone.bus.subscribe({ groupId: 'backbone-metrics.held', topics: [TOPIC], handler: () => held });

      await backbone.publisher.stop();
      for (const id of ['a', 'b', 'c']) await backbone.store.append('items', 'any', [{ eventType: 'ItemAdded', data: { id } }]);
      expect(total(await scrape(), 'outbox_backlog_rows')).toBe(3);

      await backbone.publisher.drain();
      expect(total(await scrape(), 'outbox_backlog_rows')).toBe(0);
      // One stream, one partition: the held consumer is three messages behind it (the one in hand included).
      await waitUntil(async () => (await scrape()).includes('projection_lag_events{projection="backbone-metrics"} 0') && total(await scrape(), 'bus_consumer_lag_messages') === 3, {
        what: 'the projection to apply the events and the held consumer to stay behind',
      });
      expect(await scrape()).toMatch(new RegExp(`^bus_consumer_lag_messages\\{topic="${TOPIC.replace(/\./g, '\\.')}",partition="\\d+"\\} 3$`, 'm'));

      release();
      await waitUntil(async () => total(await scrape(), 'bus_consumer_lag_messages') === 0, { what: 'the held consumer to catch up' });
    } finally {
      release();
      await backbone.close();
    }
  }, 120_000);
});
