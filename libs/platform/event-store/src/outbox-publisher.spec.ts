/**
 * The outbox publisher against real parts: the event store on PGlite and Postgres, publishing to the
 * Kafka adapter (librdkafka's mock cluster) and to the local adapter over the same database.
 */
import { LOCAL_BUS_MIGRATIONS, type BusRecord, type EventBus } from '@trustmesh/platform-bus';
import { openTestBus, TEST_BUS_KINDS } from '@trustmesh/platform-bus/testing';
import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { openEventStore } from './event-store';
import { EVENT_STORE_MIGRATIONS } from './event-store.migrations';
import { OutboxPublisher } from './outbox-publisher';

const cluster = useKafkaCluster();

/** Collects what a consumer group receives, by stream. */
async function collect(bus: EventBus, topic: string) {
  const received: BusRecord[] = [];
  const subscription = await bus.subscribe({ groupId: uniqueName('outbox-reader'), topics: [topic], start: 'earliest', handler: async (record) => void received.push(record) });
  return { received, stop: () => subscription.stop() };
}

function versionsByStream(records: readonly BusRecord[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const record of records) (out[record.envelope.streamId] ??= []).push(record.envelope.streamVersion);
  return out;
}

describe.each(TEST_DATABASE_KINDS.flatMap((database) => TEST_BUS_KINDS.map((bus) => [database, bus] as const)))('the outbox publisher on %s to the %s bus', (databaseKind, busKind) => {
  let testDb: TestDatabase;
  let database: Database;
  let bus: EventBus;

  beforeAll(async () => {
    testDb = await createTestDatabase(databaseKind, 'outbox');
    database = await testDb.open();
    // A server database is migrated by the deploy command before services start; here, by the test.
    await applyMigrations(database, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS]);
    bus = await openTestBus(busKind, { brokers: cluster.brokers, database, databaseConfig: testDb.config });
  }, 120_000);

  afterAll(async () => {
    await bus?.close();
    await testDb?.dispose();
  }, 60_000);

  it('moves appended events to the bus, each stream in its append order', async () => {
    const topic = uniqueName('outbox.ordered');
    const store = await openEventStore(database, { producer: 'outbox-test@1' });
    for (let round = 0; round < 4; round += 1) {
      for (const stream of ['a', 'b', 'c']) {
        await store.append(`${topic}-${stream}`, round === 0 ? 'no-stream' : round, [{ eventType: 'ThingHappened', data: { round } }], { topic });
      }
    }
    const reader = await collect(bus, topic);
    const publisher = new OutboxPublisher(store, bus, { idleMs: 20 });
    publisher.start();
    await waitUntil(() => reader.received.length >= 12, { timeoutMs: 60_000, what: '12 published events' });
    await publisher.stop();
    await reader.stop();
    await store.close();

    expect(versionsByStream(reader.received)).toEqual({ [`${topic}-a`]: [1, 2, 3, 4], [`${topic}-b`]: [1, 2, 3, 4], [`${topic}-c`]: [1, 2, 3, 4] });
    expect(publisher.stats.published).toBe(12);
  }, 120_000);

  it('with a linger, publishes the appends that came within it as one batch', async () => {
    const topic = uniqueName('outbox.linger');
    const store = await openEventStore(database, { producer: 'outbox-test@1' });
    const reader = await collect(bus, topic);
    const publishes: number[] = [];
    const counting: EventBus = Object.create(bus, {
      publish: { value: (to: string, envelopes: Parameters<EventBus['publish']>[1]) => (publishes.push(envelopes.length), bus.publish(to, envelopes)) },
    });
    const publisher = new OutboxPublisher(store, counting, { idleMs: 60_000, lingerMs: 300 });
    publisher.start();
    await waitUntil(() => publisher.stats.running, { timeoutMs: 5_000, what: 'the publisher' });
    for (const stream of ['a', 'b', 'c', 'd']) {
      await store.append(`${topic}-${stream}`, 'no-stream', [{ eventType: 'ThingHappened', data: { stream } }], { topic });
      publisher.kick();
    }
    await waitUntil(() => reader.received.length >= 4, { timeoutMs: 60_000, what: '4 published events' });
    await publisher.stop();
    await reader.stop();
    await store.close();

    expect(publishes).toEqual([4]);
    // One batch, one publish call; across streams (partitions) the bus keeps no order.
    expect(reader.received.map((record) => (record.envelope.data as { stream: string }).stream).sort()).toEqual(['a', 'b', 'c', 'd']);
  }, 120_000);

  it('publishes, after a crash between commit and publish, what the crashed process had committed', async () => {
    const topic = uniqueName('outbox.crash');
    const crashed = await openEventStore(database, { producer: 'outbox-test@1' });
    await crashed.append(`${topic}-s`, 'no-stream', [1, 2, 3].map((n) => ({ eventType: 'ThingHappened', data: { n } })), { topic });
    // The process dies here: committed, never published. Its store is abandoned, not closed cleanly.
    const restarted = await openEventStore(database, { producer: 'outbox-test@1', outboxLeaseMs: 500 });
    expect(await restarted.outboxBacklog()).toBe(3);
    const reader = await collect(bus, topic);
    const publisher = new OutboxPublisher(restarted, bus, { idleMs: 50 });
    publisher.start();
    // The crashed publisher held no lease, so the restarted one publishes at once.
    await waitUntil(() => reader.received.length >= 3, { timeoutMs: 60_000, what: 'the committed events' });
    await publisher.stop();
    await reader.stop();

    expect(reader.received.map((record) => record.envelope.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await restarted.outboxBacklog()).toBe(0);
    await restarted.close();
    await crashed.close();
  }, 120_000);
  it('marks a batch published only once the bus confirmed it', async () => {
    const topic = uniqueName('outbox.confirmed');
    const store = await openEventStore(database, { producer: 'outbox-test@1' });
    await store.append(`${topic}-s`, 'no-stream', [1, 2].map((n) => ({ eventType: 'ThingHappened', data: { n } })), { topic });
    let confirm!: () => void;
    const confirmed = new Promise<void>((resolve) => (confirm = resolve));
    let calls = 0;
    // The real bus, whose confirmation is held back until the test lets it through.
    const held: EventBus = Object.assign(Object.create(bus) as EventBus, {
      publish: async (target: string, envelopes: Parameters<EventBus['publish']>[1]) => {
        calls += 1;
        await confirmed;
        await bus.publish(target, envelopes);
      },
    });
    const publisher = new OutboxPublisher(store, held, { idleMs: 20 });
    publisher.start();
    await waitUntil(() => calls > 0, { timeoutMs: 60_000, what: 'the publish call' });
    // A publisher that did not wait for the bus would have marked the rows by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await store.outboxBacklog()).toBe(2);
    expect(publisher.stats.published).toBe(0);
    confirm();
    await waitUntil(async () => (await store.outboxBacklog()) === 0, { timeoutMs: 60_000, what: 'the confirmed rows marked' });
    await publisher.stop();
    await store.close();
    expect(publisher.stats.published).toBe(2);
  }, 120_000);
  it('leaves published rows to the purge, which deletes those published before its cut and keeps the events', async () => {
    const topic = uniqueName('outbox.retention');
    const store = await openEventStore(database, { producer: 'outbox-test@1' });
    const stream = `${topic}-s`;
    await store.append(stream, 'no-stream', [{ eventType: 'ThingHappened', data: { n: 1 } }], { topic });
    const outboxRows = () => database.withConnection(async (sql) => (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE topic = $1', [topic]))[0]?.n);
    const publisher = new OutboxPublisher(store, bus, { idleMs: 20 });
    publisher.start();
    await waitUntil(async () => (await store.outboxBacklog()) === 0, { timeoutMs: 60_000, what: 'the row published' });
    await publisher.stop();
    // The platform's maintenance purges (platform-maintenance), not the publisher; the cut decides.
    expect(await outboxRows()).toBe(1);
    await store.purgePublishedOutbox(new Date(Date.now() - 60 * 60_000));
    expect(await outboxRows()).toBe(1);
    expect(await store.purgePublishedOutbox(new Date(Date.now() + 1_000))).toBeGreaterThanOrEqual(1);
    expect(await outboxRows()).toBe(0);
    expect(await store.readStream(stream)).toHaveLength(1);
    await store.close();
  }, 120_000);
});
