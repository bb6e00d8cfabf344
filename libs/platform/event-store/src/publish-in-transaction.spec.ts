// Appends that publish to the local bus in their own transaction (`publishInTransaction`, embedded only):
// each accepted append's events reach the bus exactly once, in order, with no outbox row left to move; a
// refused append publishes nothing and does not take appends made at the same time down with it.
import { createLocalEventBus, type BusRecord, type LocalEventBus } from '@trustmesh/platform-bus';
import type { Database } from '@trustmesh/platform-database';
import { createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';
import { uniqueName, waitUntil } from '@trustmesh/platform-testing';

import { ConcurrencyError, EventStoreError } from './event-store.errors';
import { openEventStore, type EventStore } from './event-store';

const TOPIC = 'orders.v1';

describe('appends that publish in their own transaction (embedded, local bus)', () => {
  let testDb: TestDatabase;
  let database: Database;
  let bus: LocalEventBus;
  let store: EventStore;

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite-memory', 'publish-in-transaction');
    database = await testDb.open();
    bus = await createLocalEventBus(
      { bus: { adapter: 'local', kafka: null, topicPrefix: '', maxAttempts: 3, retryBackoffMs: 20, localPartitions: 4 }, database: testDb.config },
      database,
      { logger: { log: () => undefined }, maxMessageBytes: 4_096 },
    );
    store = await openEventStore(database, { producer: 'orders@1.0.0', defaultTopic: TOPIC, publishInTransaction: bus });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await bus?.close();
    await testDb?.dispose();
  }, 60_000);

  /** Every record of `TOPIC` a new consumer group reads from the start, until `count` arrived. */
  async function consumed(count: number): Promise<BusRecord[]> {
    const records: BusRecord[] = [];
    const subscription = await bus.subscribe({ groupId: uniqueName('reader'), topics: [TOPIC], handler: async (record) => void records.push(record) });
    try {
      await waitUntil(() => records.length >= count, { timeoutMs: 30_000, what: `${count} records` });
    } finally {
      await subscription.stop();
    }
    return records;
  }

  it('says so, and publishes accepted events in stream order with nothing left in the outbox', async () => {
    expect(store.publishesInTransaction).toBe(true);
    const stream = uniqueName('order');
    await store.append(stream, 'no-stream', [
      { eventType: 'OrderPlaced', data: { total: 10 } },
      { eventType: 'OrderPaid', data: { total: 10 } },
    ]);
    await store.append(stream, 2, [{ eventType: 'OrderShipped', data: {} }]);

    const records = (await consumed(3)).filter((record) => record.key === stream);
    expect(records.map((record) => `${record.envelope.streamVersion} ${record.envelope.eventType}`)).toEqual(['1 OrderPlaced', '2 OrderPaid', '3 OrderShipped']);
    expect(records.map((record) => record.envelope)).toEqual((await store.readStream(stream)).map((event) => event.envelope));
    expect(await store.claimOutbox()).toEqual([]);
    expect(await store.outboxBacklog()).toBe(0);
  }, 60_000);

  it('answers concurrent appends each on its own: a conflict or a message the bus refuses costs only its own append', async () => {
    const [taken, fresh, oversized] = [uniqueName('taken'), uniqueName('fresh'), uniqueName('oversized')];
    await store.append(taken, 'no-stream', [{ eventType: 'OrderPlaced', data: {} }]);

    const outcomes = await Promise.allSettled([
      store.append(taken, 'no-stream', [{ eventType: 'OrderPlaced', data: { again: true } }]),
      store.append(fresh, 'no-stream', [{ eventType: 'OrderPlaced', data: { n: 1 } }]),
      store.append(oversized, 'no-stream', [{ eventType: 'OrderPlaced', data: { blob: 'x'.repeat(8_192) } }]),
      store.append(fresh, 1, [{ eventType: 'OrderPaid', data: { n: 2 } }]),
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
    const refused = (outcomes[2] as PromiseRejectedResult).reason as EventStoreError;
    expect(refused).toBeInstanceOf(EventStoreError);
    expect(refused.code).toBe('STORE_FAILED');
    expect(await store.streamVersion(oversized)).toBe(0);
    expect(await store.streamVersion(taken)).toBe(1);

    // The first test's three, then these three.
    const all = await consumed(6);
    const keys = (stream: string) => all.filter((record) => record.key === stream).map((record) => record.envelope.eventType);
    expect(keys(taken)).toEqual(['OrderPlaced']);
    expect(keys(fresh)).toEqual(['OrderPlaced', 'OrderPaid']);
    expect(keys(oversized)).toEqual([]);
  }, 60_000);

  it('sends appends made at once without waiting for earlier answers, answering each as if made one after another', async () => {
    // Per stream, made together: the first two and the last are single statements sent at once; the 'any'
    // reads its stream first, so it waits for those before it and the last waits for it (and conflicts).
    const streams = Array.from({ length: 8 }, () => uniqueName('burst'));
    const made = streams.flatMap((stream) => [
      store.append(stream, 'no-stream', [{ eventType: 'OrderPlaced', data: {} }]),
      store.append(stream, 1, [{ eventType: 'OrderPaid', data: {} }]),
      store.append(stream, 'any', [{ eventType: 'OrderShipped', data: {} }]),
      store.append(stream, 2, [{ eventType: 'OrderShipped', data: { again: true } }]),
    ]);
    const outcomes = await Promise.allSettled(made);
    const answers = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? `v${outcome.value.streamVersion}` : (outcome.reason as EventStoreError).code));
    expect(answers).toEqual(streams.flatMap(() => ['v1', 'v2', 'v3', 'STREAM_VERSION_CONFLICT']));
    // Positions follow the order the appends were made in.
    const positions = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value.events.map(({ position }) => position) : []));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));

    const wanted = new Set(streams);
    const records: BusRecord[] = [];
    const subscription = await bus.subscribe({
      groupId: uniqueName('burst-reader'),
      topics: [TOPIC],
      handler: async (record) => void (wanted.has(record.key ?? '') && records.push(record)),
    });
    try {
      await waitUntil(() => records.length >= streams.length * 3, { timeoutMs: 30_000, what: 'every accepted event on the bus' });
    } finally {
      await subscription.stop();
    }
    for (const stream of streams) {
      expect(records.filter((record) => record.key === stream).map((record) => `${record.envelope.streamVersion} ${record.envelope.eventType}`)).toEqual([
        '1 OrderPlaced',
        '2 OrderPaid',
        '3 OrderShipped',
      ]);
    }
    expect(records).toHaveLength(streams.length * 3);
    expect(await store.claimOutbox()).toEqual([]);
  }, 60_000);

  it('is refused for a bus on another database', async () => {
    const other = await createTestDatabase('pglite-memory', 'publish-in-transaction-other');
    try {
      const otherDatabase = await other.open();
      expect(() => new (store.constructor as typeof EventStore)(otherDatabase, { publishInTransaction: bus })).toThrow(RangeError);
    } finally {
      await other.dispose();
    }
  }, 60_000);
});
