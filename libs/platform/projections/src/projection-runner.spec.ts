/**
 * The projection runner against real parts, over both buses and both databases: the Kafka adapter on
 * librdkafka's mock cluster, or the local adapter in the service's own database; the read model and the
 * checkpoints on PGlite or on the Postgres server. One database and one bus per combination, for the
 * whole combination's tests.
 */
import { DLQ_HEADERS, LOCAL_BUS_MIGRATIONS, deadLetterTopic, type BusRecord, type EventBus, type Subscription } from '@trustmesh/platform-bus';
import { openTestBus, TEST_BUS_KINDS } from '@trustmesh/platform-bus/testing';
import { applyMigrations, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import { uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { activate, activeVersion, ProjectionRunner, purgeProjectionHistory, type ProjectionDefinition } from './projection-runner';
import { PROJECTION_MIGRATIONS } from './projection-migrations';
import { sqlTransactions } from './projection-transactions';

const cluster = useKafkaCluster();

/** A read model: how many events each stream has, and the last version seen, per projection version. */
function streamCounts(topic: string, version: number, onApply?: (envelope: EventEnvelope) => void): ProjectionDefinition<SqlExecutor> {
  return {
    name: 'stream-counts',
    version,
    topics: [topic],
    async apply(envelope, { tx }) {
      onApply?.(envelope);
      await tx.query(
        `INSERT INTO stream_counts_v${version} (stream_id, events, last_version) VALUES ($1, 1, $2)
         ON CONFLICT (stream_id) DO UPDATE SET events = stream_counts_v${version}.events + 1, last_version = EXCLUDED.last_version`,
        [envelope.streamId, envelope.streamVersion],
      );
    },
  };
}

async function readModel(database: Database, version: number): Promise<Record<string, [number, number]>> {
  const rows = await database.withConnection((sql) =>
    sql.query<{ stream_id: string; events: number; last_version: number }>(`SELECT stream_id, events, last_version FROM stream_counts_v${version} ORDER BY stream_id`),
  );
  return Object.fromEntries(rows.map((row) => [row.stream_id, [Number(row.events), Number(row.last_version)]]));
}

function streamEvents(streams: number, perStream: number): EventEnvelope[] {
  const out: EventEnvelope[] = [];
  for (let version = 1; version <= perStream; version += 1) {
    for (let stream = 0; stream < streams; stream += 1) {
      out.push(createEnvelope({ eventType: 'CounterIncremented', data: { by: 1 } }, { streamId: `stream-${stream}`, streamVersion: version, producer: 'test@1' }));
    }
  }
  return out;
}

function envelope(streamId: string, streamVersion: number): EventEnvelope {
  return createEnvelope({ eventType: 'CounterIncremented', data: { by: 1 } }, { streamId, streamVersion, producer: 'test@1' });
}

/** Everything dead-lettered from `topic`, as an operator reading the DLQ sees it. */
async function watchDeadLetters(bus: EventBus, topic: string): Promise<{ letters: BusRecord[]; stop: () => Promise<void> }> {
  const letters: BusRecord[] = [];
  const subscription = await bus.subscribe({
    groupId: uniqueName('dlq-reader'),
    topics: [deadLetterTopic(topic)],
    handler: async (record) => void letters.push(record),
  });
  return { letters, stop: () => subscription.stop() };
}

const COMBINATIONS = TEST_DATABASE_KINDS.flatMap((databaseKind) => TEST_BUS_KINDS.map((busKind) => [databaseKind, busKind] as const));

describe.each(COMBINATIONS)('the projection runner on %s over the %s bus', (kind, busKind) => {
  let testDb: TestDatabase;
  let database: Database;
  let bus: EventBus;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'projections');
    database = await testDb.open();
    // A server database is migrated by the deploy command before services start; here, by the test.
    await applyMigrations(database, [PROJECTION_MIGRATIONS, LOCAL_BUS_MIGRATIONS]);
    await database.withConnection((sql) =>
      sql.exec(
        [1, 2]
          .map((version) => `CREATE TABLE stream_counts_v${version} (stream_id TEXT PRIMARY KEY, events INTEGER NOT NULL, last_version INTEGER NOT NULL);`)
          .join('\n'),
      ),
    );
    bus = await openTestBus(busKind, { brokers: cluster.brokers, database, databaseConfig: testDb.config });
  }, 120_000);

  afterAll(async () => {
    await bus?.close();
    await testDb?.dispose();
  }, 60_000);

  beforeEach(async () => {
    await database.withConnection((sql) => sql.exec('TRUNCATE stream_counts_v1, stream_counts_v2, projection_checkpoints, projection_versions'));
  });

  it('applies every event once, in stream order, and reports its position and lag', async () => {
    const topic = uniqueName('projection.live');
    const transactions = sqlTransactions(database);
    const seen = new Map<string, number>();
    const runner = new ProjectionRunner(
      streamCounts(topic, 1, (envelope) => {
        // Stream order: each stream's versions arrive in sequence.
        expect(envelope.streamVersion).toBe((seen.get(envelope.streamId) ?? 0) + 1);
        seen.set(envelope.streamId, envelope.streamVersion);
      }),
      transactions,
      bus,
    );
    await bus.publish(topic, streamEvents(6, 5));
    await runner.start();
    const status = await runner.catchUp(60_000);
    await runner.stop();

    expect(await readModel(database, 1)).toEqual(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`stream-${i}`, [5, 5]])));
    expect(status.totalLag).toBe(0);
    const consumed = status.positions.reduce((sum, position) => sum + Number(position.nextOffset), 0);
    expect(consumed).toBe(30);
    expect(runner.counters).toEqual({ applied: 30, skipped: 0 });
  }, 120_000);

  it('never reports the group further than its checkpoints: an event applied while the status is read shows in both or in neither', async () => {
    const topic = uniqueName('projection.status');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    // The last event's apply waits until the status is being read.
    const definition = streamCounts(topic, 1);
    const apply = definition.apply.bind(definition);
    definition.apply = async (event, context) => {
      if (event.streamVersion === 2) {
        holding = true;
        await held;
      }
      await apply(event, context);
    };
    // The group's offsets are read while the event finishes: its transaction commits, the group commits after it.
    const racing: EventBus = Object.create(bus) as EventBus;
    racing.subscribe = async (options) => {
      const subscription = await bus.subscribe(options);
      return Object.assign(Object.create(subscription) as Subscription, {
        stop: () => subscription.stop(),
        lag: async () => {
          if (holding) {
            holding = false;
            release();
            await waitUntil(async () => (await subscription.lag()).every((entry) => entry.lag === 0), { timeoutMs: 60_000, what: 'the group to commit the held event' });
          }
          return subscription.lag();
        },
      });
    };
    await bus.publish(topic, [envelope('stream-0', 1), envelope('stream-0', 2)]);
    const runner = new ProjectionRunner(definition, sqlTransactions(database), racing);
    await runner.start();
    await waitUntil(() => holding, { timeoutMs: 60_000, what: 'the second event to be in apply' });
    const status = await runner.status();
    await runner.stop();

    expect(status.totalLag).toBe(0);
    const ends = status.lag.filter((entry) => entry.endOffset !== '0').map((entry) => [entry.partition, entry.endOffset]);
    expect(status.positions.map((position) => [position.partition, position.nextOffset])).toEqual(ends);
  }, 120_000);

  it('skips events it already applied when they are delivered again', async () => {
    const topic = uniqueName('projection.redelivery');
    const transactions = sqlTransactions(database);
    await bus.publish(topic, streamEvents(3, 4));
    const first = new ProjectionRunner(streamCounts(topic, 1), transactions, bus);
    await first.start();
    await first.catchUp(60_000);
    await first.stop();
    // A second consumer group on the same version is delivered the whole log again.
    const again = new ProjectionRunner(streamCounts(topic, 1), transactions, bus, { consumerGroup: uniqueName('replacement') });
    await again.start();
    await again.catchUp(60_000);
    await again.stop();

    expect(again.counters).toEqual({ applied: 0, skipped: 12 });
    expect(await readModel(database, 1)).toEqual({ 'stream-0': [4, 4], 'stream-1': [4, 4], 'stream-2': [4, 4] });
  }, 120_000);

  it('applies an event once when the log holds it twice, as after an outbox batch that was published again', async () => {
    const topic = uniqueName('projection.copies');
    const events = streamEvents(3, 4);
    // The batch reached the broker but its acknowledgement did not; the outbox publishes it again from
    // its first unacknowledged event, so the log holds those events twice, at later offsets.
    await bus.publish(topic, events);
    await bus.publish(topic, events.slice(4));
    const runner = new ProjectionRunner(streamCounts(topic, 1), sqlTransactions(database), bus);
    await runner.start();
    const status = await runner.catchUp(60_000);
    await runner.stop();

    expect(await readModel(database, 1)).toEqual({ 'stream-0': [4, 4], 'stream-1': [4, 4], 'stream-2': [4, 4] });
    expect(runner.counters).toEqual({ applied: 12, skipped: 8 });
    expect(status.totalLag).toBe(0);
  }, 120_000);

  it('writes nothing, checkpoint included, when applying an event fails, and applies it on the retry', async () => {
    const topic = uniqueName('projection.failure');
    let failures = 1;
    const definition = streamCounts(topic, 1, () => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('read model unavailable');
      }
    });
    const runner = new ProjectionRunner(definition, sqlTransactions(database), bus);
    await bus.publish(topic, streamEvents(1, 3));
    await runner.start();
    await runner.catchUp(60_000);
    await runner.stop();

    expect(await readModel(database, 1)).toEqual({ 'stream-0': [3, 3] });
    expect(runner.counters).toEqual({ applied: 3, skipped: 0 });
  }, 120_000);

  it('never applies an event after a gap: it holds it, then dead-letters it with PROJECTION_STREAM_GAP, and applies the late event and the re-sent one in order', async () => {
    const topic = uniqueName('projection.gap');
    const v1 = envelope('gappy', 1);
    const v2 = envelope('gappy', 2);
    const v3 = envelope('gappy', 3);
    const dlq = await watchDeadLetters(bus, topic);
    const applied: number[] = [];
    const runner = new ProjectionRunner(
      streamCounts(topic, 1, (event) => void applied.push(event.streamVersion)),
      sqlTransactions(database),
      bus,
      { gapHoldMs: 500 },
    );
    await runner.start();
    // v2 is missing (it went to the DLQ upstream, or was lost): v3 must not be applied in its place.
    await bus.publish(topic, [v1, v3]);
    await waitUntil(() => dlq.letters.length === 1, { timeoutMs: 60_000 });
    expect(dlq.letters[0]?.envelope.eventId).toBe(v3.eventId);
    expect(dlq.letters[0]?.headers[DLQ_HEADERS.errorCode]).toBe('PROJECTION_STREAM_GAP');
    await runner.catchUp(60_000);
    expect(await readModel(database, 1)).toEqual({ gappy: [1, 1] });

    // The late event arrives (re-sent after a fix), then the dead-lettered one is re-sent from the DLQ.
    await bus.publish(topic, [v2]);
    await bus.publish(topic, [v3]);
    await waitUntil(async () => JSON.stringify(await readModel(database, 1)) === JSON.stringify({ gappy: [3, 3] }), { timeoutMs: 60_000 });
    await runner.catchUp(60_000);
    await runner.stop();
    await dlq.stop();
    expect(applied).toEqual([1, 2, 3]);
    expect(dlq.letters).toHaveLength(1);
  }, 180_000);

  it('takes an event at an applied version for a copy only when it is the same event: another one is dead-lettered with PROJECTION_EVENT_CONFLICT', async () => {
    const topic = uniqueName('projection.conflict');
    const original = [envelope('forked', 1), envelope('forked', 2)] as const;
    const impostor = envelope('forked', 1);
    const dlq = await watchDeadLetters(bus, topic);
    const runner = new ProjectionRunner(streamCounts(topic, 1), sqlTransactions(database), bus);
    await bus.publish(topic, [...original, original[0], impostor]);
    await runner.start();
    await waitUntil(() => dlq.letters.length === 1, { timeoutMs: 60_000 });
    await runner.catchUp(60_000);
    await runner.stop();
    await dlq.stop();

    expect(dlq.letters[0]?.envelope.eventId).toBe(impostor.eventId);
    expect(dlq.letters[0]?.headers[DLQ_HEADERS.errorCode]).toBe('PROJECTION_EVENT_CONFLICT');
    expect(await readModel(database, 1)).toEqual({ forked: [2, 2] });
    expect(runner.counters).toMatchObject({ applied: 2, skipped: 1 });
  }, 120_000);

  it('does not trust its checkpoints in another log (a new topic prefix): every event of the new log is applied', async () => {
    const topic = uniqueName('projection.relog');
    const transactions = sqlTransactions(database);
    await bus.publish(topic, streamEvents(2, 3));
    const before = new ProjectionRunner(streamCounts(topic, 1), transactions, bus);
    await before.start();
    await before.catchUp(60_000);
    await before.stop();
    expect(await readModel(database, 1)).toEqual({ 'stream-0': [3, 3], 'stream-1': [3, 3] });

    // The same service topic in a new log (here: another prefix; as after a recreated topic, a restarted
    // mock cluster or a switch of adapter), whose offsets start again at 0: six events of new streams.
    const renamed = await openTestBus(busKind, { brokers: cluster.brokers, database, databaseConfig: testDb.config, topicPrefix: uniqueName('moved') + '.' });
    try {
      await renamed.publish(topic, [1, 2, 3].flatMap((version) => [envelope('new-a', version), envelope('new-b', version)]));
      const after = new ProjectionRunner(streamCounts(topic, 1), transactions, renamed);
      await after.start();
      await after.catchUp(60_000);
      await after.stop();
      expect(after.counters).toMatchObject({ applied: 6, skipped: 0 });
    } finally {
      await renamed.close();
    }
    expect(await readModel(database, 1)).toEqual({ 'new-a': [3, 3], 'new-b': [3, 3], 'stream-0': [3, 3], 'stream-1': [3, 3] });
  }, 180_000);

  it('rebuilds a new version side by side from the log, and activates it when it matches', async () => {
    const topic = uniqueName('projection.rebuild');
    const transactions = sqlTransactions(database);
    const live = new ProjectionRunner(streamCounts(topic, 1), transactions, bus);
    await live.start();
    await bus.publish(topic, streamEvents(5, 3));
    await live.catchUp(60_000);
    await activate(transactions, 'stream-counts', 1);

    const rebuild = new ProjectionRunner(streamCounts(topic, 2), transactions, bus);
    await rebuild.start();
    await rebuild.catchUp(60_000);
    // Version 1 served all along, and keeps serving until version 2 is activated.
    expect(await activeVersion(transactions, 'stream-counts')).toBe(1);
    await bus.publish(topic, streamEvents(5, 4).slice(15));
    await waitUntil(async () => (await live.status()).totalLag === 0 && (await rebuild.status()).totalLag === 0, { timeoutMs: 60_000 });
    await waitUntil(async () => JSON.stringify(await readModel(database, 2)) === JSON.stringify(await readModel(database, 1)), { timeoutMs: 30_000 });
    expect(await readModel(database, 2)).toEqual(await readModel(database, 1));
    expect(Object.keys(await readModel(database, 2))).toHaveLength(5);

    await rebuild.activate();
    expect(await activeVersion(transactions, 'stream-counts')).toBe(2);

    // Readers never move back by mistake, nor to a version that did not run.
    await expect(activate(transactions, 'stream-counts', 1)).rejects.toMatchObject({ code: 'PROJECTION_VERSION_OLDER' });
    await expect(activate(transactions, 'stream-counts', 3)).rejects.toMatchObject({ code: 'PROJECTION_VERSION_UNFINISHED' });
    expect(await activeVersion(transactions, 'stream-counts')).toBe(2);
    await activate(transactions, 'stream-counts', 1, { allowOlder: true });
    expect(await activeVersion(transactions, 'stream-counts')).toBe(1);
    await activate(transactions, 'stream-counts', 2);
    await Promise.all([live.stop(), rebuild.stop()]);

    // Retention: the retired version's rows go, and applied event ids older than the cut.
    const purged = await purgeProjectionHistory(transactions, 'stream-counts', { appliedEventsBefore: new Date(Date.now() + 60_000) });
    expect(purged.retiredRows).toBeGreaterThan(0);
    expect(purged.appliedEvents).toBeGreaterThan(0);
    expect((await live.status()).positions).toEqual([]);
    expect((await rebuild.status()).positions.length).toBeGreaterThan(0);
  }, 180_000);
});

describe('the projection runner on one embedded database (PGlite: one connection) over the local bus', () => {
  let testDb: TestDatabase;
  let database: Database;
  let bus: EventBus;

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite', 'projections-embedded');
    database = await testDb.open();
    await applyMigrations(database, [PROJECTION_MIGRATIONS, LOCAL_BUS_MIGRATIONS]);
    await database.withConnection((sql) => sql.exec('CREATE TABLE side_notes (stream_id TEXT, version INTEGER);'));
    bus = await openTestBus('local', { database, databaseConfig: testDb.config });
  }, 120_000);

  afterAll(async () => {
    await bus?.close();
    await testDb?.dispose();
  }, 60_000);

  it('does not freeze the database when apply writes outside its transaction: the event fails with PROJECTION_APPLY_TIMEOUT', async () => {
    const topic = uniqueName('projection.outside');
    const dlq = await watchDeadLetters(bus, topic);
    const runner = new ProjectionRunner<SqlExecutor>(
      {
        name: 'outside-writes',
        version: 1,
        topics: [topic],
        // The mistake: writing through the database instead of `tx`. On PGlite this waits for the
        // transaction that waits for it.
        apply: (envelope) => database.withConnection((sql) => sql.query('INSERT INTO side_notes VALUES ($1, $2)', [envelope.streamId, envelope.streamVersion])).then(() => undefined),
      },
      sqlTransactions(database),
      bus,
      { applyTimeoutMs: 500 },
    );
    await runner.start();
    await bus.publish(topic, [envelope('outside', 1)]);
    await waitUntil(() => dlq.letters.length === 1, { timeoutMs: 60_000 });
    expect(dlq.letters[0]?.headers[DLQ_HEADERS.errorCode]).toBe('PROJECTION_APPLY_TIMEOUT');
    // The database still answers everyone.
    await expect(database.withConnection((sql) => sql.query('SELECT 1 AS one'))).resolves.toEqual([{ one: 1 }]);
    await runner.stop();
    await dlq.stop();
  }, 120_000);
});
