/**
 * The projection runner against real parts, over both buses and both databases: the Kafka adapter on
 * librdkafka's mock cluster, or the local adapter in the service's own database; the read model and the
 * checkpoints on PGlite or on the Postgres server. One database and one bus per combination, for the
 * whole combination's tests.
 */
import { LOCAL_BUS_MIGRATIONS, type EventBus } from '@trustmesh/platform-bus';
import { openTestBus, TEST_BUS_KINDS } from '@trustmesh/platform-bus/testing';
import { applyMigrations, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import { uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { activate, activeVersion, ProjectionRunner, type ProjectionDefinition } from './projection-runner';
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

    await activate(transactions, 'stream-counts', 2);
    expect(await activeVersion(transactions, 'stream-counts')).toBe(2);
    await Promise.all([live.stop(), rebuild.stop()]);
  }, 180_000);
});
