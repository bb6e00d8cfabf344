/**
 * Retention of the local bus's log (`local-log.retention.ts`) against real databases, PGlite and the
 * Postgres server: consumer groups on real buses, messages made old by moving their `published_at` back
 * (the age the retention reads), and the rows left in `bus_messages` as the outcome.
 */
import { TEST_DATABASE_KINDS } from '@trustmesh/platform-database/testing';
import { uniqueName, waitUntil } from '@trustmesh/platform-testing';

import { deadLetterTopic, type Subscription } from '../event-bus.port';
import { event, interleavedEvents, latch, range, recorder, streamIds } from '../test/bus-events';
import { applyLocalLogRetention } from './local-log.retention';
import { busDatabase, storedMessages, testBus, type BusDatabase } from './test/local-bus.harness';

const DAY_MS = 24 * 60 * 60_000;
const RETENTION = { retainMs: DAY_MS, maxAgeMs: 30 * DAY_MS };

describe.each(TEST_DATABASE_KINDS)('local bus retention on %s', (kind) => {
  let db: BusDatabase;

  beforeAll(async () => {
    db = await busDatabase(kind, 'bus-retention');
  }, 60_000);

  afterAll(async () => {
    await db?.testDb.dispose();
  }, 60_000);

  /** Makes every message of `topic` now in the log `days` days old. */
  const age = (topic: string, days: number) =>
    db.database.withConnection((sql) => sql.query(`UPDATE bus_messages SET published_at = now() - $2::integer * interval '1 day' WHERE topic = $1`, [topic, days]));

  /** Every message published so far is handled and committed (not only handed to the handler). */
  const consumedAll = (...subscriptions: Subscription[]) =>
    waitUntil(async () => (await Promise.all(subscriptions.map((subscription) => subscription.lag()))).flat().every((partition) => partition.lag === 0), {
      timeoutMs: 30_000,
      what: 'every group to commit everything',
    });

  const stored = async (topic: string) => (await storedMessages(db.database, topic)).map((message) => `${message.partition}:${message.offset}`);

  it('deletes what every live group committed once it is older than the retention, and keeps the rest', async () => {
    const { bus } = await testBus(db);
    const topic = uniqueName('retention.counters.v1');
    const first = recorder();
    const second = recorder();
    try {
      const groups = [
        await bus.subscribe({ groupId: uniqueName('first'), topics: [topic], handler: first.handler }),
        await bus.subscribe({ groupId: uniqueName('second'), topics: [topic], handler: second.handler }),
      ];
      await bus.publish(topic, interleavedEvents(streamIds('old', 5), 4));
      await consumedAll(...groups);
      await age(topic, 2);
      await bus.publish(topic, interleavedEvents(streamIds('young', 3), 2));
      await consumedAll(...groups);
      const young = (await storedMessages(db.database, topic)).filter((message) => message.key.startsWith('young'));

      expect(await applyLocalLogRetention(db.database, RETENTION)).toEqual({ deleted: 20, unconsumed: 0 });
      expect(await stored(topic)).toEqual(young.map((message) => `${message.partition}:${message.offset}`));
      // Once more: nothing left to do.
      expect(await applyLocalLogRetention(db.database, RETENTION)).toEqual({ deleted: 0, unconsumed: 0 });
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('keeps what a live group has not committed however old, until it commits or the hard maximum age passes', async () => {
    const { bus } = await testBus(db);
    // One message fetched at a time: what a member has fetched is delivered even if retention deletes it meanwhile.
    const { bus: laggingBus, logger } = await testBus(db, { consumer: { fetchBatchSize: 1 } });
    const topic = uniqueName('lagging.counters.v1');
    const fast = recorder();
    const held = latch();
    const lagging = recorder(() => held.promise);
    try {
      const fastGroup = await bus.subscribe({ groupId: uniqueName('fast'), topics: [topic], handler: fast.handler });
      await laggingBus.subscribe({ groupId: uniqueName('lagging'), topics: [topic], handler: lagging.handler });
      await bus.publish(topic, interleavedEvents(streamIds('s', 4), 5));
      await consumedAll(fastGroup);
      await age(topic, 10);

      // The lagging group holds its first message: it committed nothing, so nothing goes.
      expect(await applyLocalLogRetention(db.database, RETENTION)).toEqual({ deleted: 0, unconsumed: 0 });
      expect(await stored(topic)).toHaveLength(20);

      // Past the hard bound, whatever the groups committed: counted as unconsumed.
      expect(await applyLocalLogRetention(db.database, { retainMs: DAY_MS, maxAgeMs: 5 * DAY_MS })).toEqual({ deleted: 20, unconsumed: 20 });
      expect(await stored(topic)).toEqual([]);

      // The lagging group finishes what it had fetched (a message per partition at most), then finds the rest
      // gone: it resumes at the oldest kept message and says so.
      held.open();
      await bus.publish(topic, interleavedEvents(streamIds('s', 4), 6).slice(20));
      await waitUntil(() => lagging.records.filter((record) => record.envelope.streamVersion === 6).length === 4, { what: 'the lagging group to reach the new events' });
      expect(lagging.records.filter((record) => record.envelope.streamVersion < 6).length).toBeLessThanOrEqual(4);
      expect(logger.lines).toContainEqual(
        expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ code: 'BUS_LOG_TRUNCATED', topic }) }),
      );
    } finally {
      held.open();
      await Promise.all([bus.close(), laggingBus.close()]);
    }
  }, 60_000);

  it('lets a group with no live member protect nothing, and a new group start at the oldest kept message, caught up', async () => {
    const { bus, logger } = await testBus(db);
    const topic = uniqueName('departed.counters.v1');
    const live = recorder();
    const departedGroup = uniqueName('departed');
    try {
      const departed = await bus.subscribe({ groupId: departedGroup, topics: [topic], handler: recorder().handler, start: 'latest' });
      await departed.stop();
      const liveGroup = await bus.subscribe({ groupId: uniqueName('live'), topics: [topic], handler: live.handler });
      await bus.publish(topic, interleavedEvents(streamIds('s', 8), 2));
      await consumedAll(liveGroup);
      await age(topic, 2);

      expect(await applyLocalLogRetention(db.database, RETENTION)).toEqual({ deleted: 16, unconsumed: 0 });

      // Every partition was emptied: a new group from the earliest message has nothing to catch up on.
      const newcomer = recorder();
      const fresh = await bus.subscribe({ groupId: uniqueName('newcomer'), topics: [topic], handler: newcomer.handler, start: 'earliest' });
      expect((await fresh.lag()).map((partition) => partition.lag)).toEqual([0, 0, 0, 0]);

      const comeback = recorder();
      await bus.subscribe({ groupId: departedGroup, topics: [topic], handler: comeback.handler });
      await bus.publish(topic, interleavedEvents(streamIds('s', 8), 3).slice(16));
      await waitUntil(() => newcomer.records.length === 8 && comeback.records.length === 8, { what: 'both groups to get the new events' });
      expect(newcomer.records.every((record) => record.envelope.streamVersion === 3)).toBe(true);
      expect(comeback.records.every((record) => record.envelope.streamVersion === 3)).toBe(true);
      expect(logger.lines).toContainEqual(
        expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ code: 'BUS_LOG_TRUNCATED', groupId: departedGroup }) }),
      );
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('keeps dead letters until the hard maximum age', async () => {
    const { bus } = await testBus(db);
    const topic = uniqueName('poison.counters.v1');
    try {
      const refusing = await bus.subscribe({
        groupId: uniqueName('refusing'),
        topics: [topic],
        maxAttempts: 1,
        handler: () => Promise.reject(new Error('refused')),
      });
      await bus.publish(topic, interleavedEvents(streamIds('p', 2), 1));
      await consumedAll(refusing);
      expect(await stored(deadLetterTopic(topic))).toHaveLength(2);
      await age(topic, 2);
      await age(deadLetterTopic(topic), 2);

      expect(await applyLocalLogRetention(db.database, RETENTION)).toEqual({ deleted: 2, unconsumed: 0 });
      expect(await stored(deadLetterTopic(topic))).toHaveLength(2);

      await age(deadLetterTopic(topic), 31);
      expect(await applyLocalLogRetention(db.database, RETENTION)).toEqual({ deleted: 2, unconsumed: 2 });
      expect(await stored(deadLetterTopic(topic))).toEqual([]);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('loses nothing a live group has not consumed while publishers keep publishing during purges', async () => {
    const { bus } = await testBus(db);
    const topic = uniqueName('busy.counters.v1');
    const quick = recorder();
    const slow = recorder(() => new Promise((resolve) => setImmediate(resolve)));
    const streams = streamIds('busy', 6);
    const rounds = 15;
    try {
      const groups = [
        await bus.subscribe({ groupId: uniqueName('quick'), topics: [topic], handler: quick.handler }),
        await bus.subscribe({ groupId: uniqueName('slow'), topics: [topic], handler: slow.handler }),
      ];
      let publishing = true;
      const publisher = (async () => {
        for (const version of range(1, rounds)) await bus.publish(topic, streams.map((stream) => event(stream, version)));
        publishing = false;
      })();
      // Everything consumed counts as old enough: the purge runs right behind the slower group, in small batches.
      while (publishing) await applyLocalLogRetention(db.database, { retainMs: 0, maxAgeMs: DAY_MS, batchSize: 3 });
      await publisher;
      await consumedAll(...groups);
      await applyLocalLogRetention(db.database, { retainMs: 0, maxAgeMs: DAY_MS, batchSize: 3 });

      for (const stream of streams) {
        expect(quick.versionsByStream().get(stream)).toEqual(range(1, rounds));
        expect(slow.versionsByStream().get(stream)).toEqual(range(1, rounds));
      }
      expect(await stored(topic)).toEqual([]);
    } finally {
      await bus.close();
    }
  }, 90_000);

  it('refuses a maximum age below the retention', async () => {
    await expect(applyLocalLogRetention(db.database, { retainMs: 2 * DAY_MS, maxAgeMs: DAY_MS })).rejects.toThrow(/maxAgeMs ≥ retainMs/);
  });
});
