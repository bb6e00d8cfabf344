/**
 * The control feed on a real local bus (embedded PGlite): what a replica appended reaches its listeners once,
 * at once, and not again when the bus brings it back; every other replica still gets it from the bus.
 */
import { LOCAL_BUS_MIGRATIONS, type EventBus } from '@trustmesh/platform-bus';
import { openTestBus } from '@trustmesh/platform-bus/testing';
import { applyMigrations } from '@trustmesh/platform-database';
import { createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';

import { JsonLogger } from '../logging/json-logger';
import { ControlEventFeed } from './control-event-feed';
import { RELAY_CONTROL_TOPIC } from './control.events';

describe('control event feed', () => {
  let testDb: TestDatabase;
  let bus: EventBus;
  const feeds: ControlEventFeed[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite', 'control-feed');
    const database = await testDb.open();
    await applyMigrations(database, [LOCAL_BUS_MIGRATIONS]);
    bus = await openTestBus('local', { database, databaseConfig: testDb.config });
  });

  afterAll(async () => {
    for (const feed of feeds) await feed.stop();
    await bus?.close();
    await testDb?.dispose();
  });

  async function replica(replicaId: string): Promise<{ feed: ControlEventFeed; seen: string[] }> {
    const logger = new JsonLogger({ level: 'error', service: 'relay-gateway', replica: replicaId, write: () => undefined });
    const feed = new ControlEventFeed(bus, replicaId, logger);
    feeds.push(feed);
    await feed.start();
    const seen: string[] = [];
    feed.on((envelope) => seen.push(envelope.eventId));
    return { feed, seen };
  }

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  it('delivers an appended event once on the appending replica and once on every other', async () => {
    const a = await replica('replica-a');
    const b = await replica('replica-b');
    const stream = 'presence-7d1f';
    const event = (version: number, eventType: string): EventEnvelope =>
      createEnvelope({ eventType, data: { workspaceId: '7d1f' } }, { streamId: stream, streamVersion: version, producer: 'relay-gateway@test' });
    const appended = event(1, 'BrowserSessionStarted');
    // Appended on replica a: delivered there at once, then published (the outbox publisher's part).
    a.feed.deliverAppended([appended]);
    expect(a.seen).toEqual([appended.eventId]);
    // A later event of the same stream that a did not append (another replica's): it comes after the copy of
    // the first on the same partition, so once it has arrived the copy has been handled.
    const later = event(2, 'BrowserSessionEnded');
    await bus.publish(RELAY_CONTROL_TOPIC, [appended, later]);
    await until(() => a.seen.includes(later.eventId) && b.seen.includes(later.eventId));

    expect(a.seen).toEqual([appended.eventId, later.eventId]);
    expect(b.seen).toEqual([appended.eventId, later.eventId]);
  });
});
