/**
 * A projection rebuilt from the local bus after its retention deleted the oldest events, on PGlite and on
 * the Postgres server: the rebuild sees only what is kept, and a stream whose first versions are gone is
 * refused as a gap (the DLQ, `PROJECTION_STREAM_GAP`), never applied from the middle, while streams the
 * bus still holds whole are rebuilt. The serving version, which consumed everything before the purge,
 * keeps its read model and goes on.
 */
import { applyLocalLogRetention, DLQ_HEADERS, LOCAL_BUS_MIGRATIONS, deadLetterTopic, type BusRecord, type EventBus } from '@trustmesh/platform-bus';
import { openTestBus } from '@trustmesh/platform-bus/testing';
import { applyMigrations, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import { uniqueName, waitUntil } from '@trustmesh/platform-testing';

import { ProjectionRunner, type ProjectionDefinition } from './projection-runner';
import { PROJECTION_MIGRATIONS } from './projection-migrations';
import { sqlTransactions } from './projection-transactions';

const DAY_MS = 24 * 60 * 60_000;

function streamCounts(topic: string, version: number): ProjectionDefinition<SqlExecutor> {
  return {
    name: 'rebuild-counts',
    version,
    topics: [topic],
    async apply(envelope, { tx }) {
      await tx.query(
        `INSERT INTO rebuild_counts_v${version} (stream_id, events, last_version) VALUES ($1, 1, $2)
         ON CONFLICT (stream_id) DO UPDATE SET events = rebuild_counts_v${version}.events + 1, last_version = EXCLUDED.last_version`,
        [envelope.streamId, envelope.streamVersion],
      );
    },
  };
}

const envelope = (streamId: string, streamVersion: number): EventEnvelope =>
  createEnvelope({ eventType: 'CounterIncremented', data: { by: 1 } }, { streamId, streamVersion, producer: 'test@1' });

describe.each(TEST_DATABASE_KINDS)('rebuilding a projection after the local bus retention on %s', (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  let bus: EventBus;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'projection-rebuild-retention');
    database = await testDb.open();
    await applyMigrations(database, [PROJECTION_MIGRATIONS, LOCAL_BUS_MIGRATIONS]);
    await database.withConnection((sql) =>
      sql.exec([1, 2].map((version) => `CREATE TABLE rebuild_counts_v${version} (stream_id TEXT PRIMARY KEY, events INTEGER NOT NULL, last_version INTEGER NOT NULL);`).join('\n')),
    );
    bus = await openTestBus('local', { database, databaseConfig: testDb.config });
  }, 60_000);

  afterAll(async () => {
    await bus?.close();
    await testDb?.dispose();
  }, 60_000);

  const readModel = async (version: number) =>
    Object.fromEntries(
      (await database.withConnection((sql) => sql.query<{ stream_id: string; events: number; last_version: number }>(`SELECT * FROM rebuild_counts_v${version} ORDER BY stream_id`))).map(
        (row) => [row.stream_id, [Number(row.events), Number(row.last_version)]],
      ),
    );

  it('refuses the streams whose beginning was deleted as gaps, and rebuilds the streams the bus holds whole', async () => {
    const topic = uniqueName('rebuild.counters.v1');
    const serving = new ProjectionRunner(streamCounts(topic, 1), sqlTransactions(database), bus);
    const rebuild = new ProjectionRunner(streamCounts(topic, 2), sqlTransactions(database), bus, { gapHoldMs: 0 });
    const letters: BusRecord[] = [];
    const dlq = await bus.subscribe({ groupId: uniqueName('dlq-reader'), topics: [deadLetterTopic(topic)], handler: async (record) => void letters.push(record) });
    try {
      await serving.start();
      const old = ['old-0', 'old-1', 'old-2', 'old-3'];
      await bus.publish(topic, [1, 2, 3].flatMap((version) => old.map((stream) => envelope(stream, version))));
      await serving.catchUp(60_000);
      await database.withConnection((sql) => sql.query(`UPDATE bus_messages SET published_at = now() - interval '8 days' WHERE topic = $1`, [topic]));
      await bus.publish(topic, [...old.map((stream) => envelope(stream, 4)), envelope('new', 1), envelope('new', 2)]);
      await serving.catchUp(60_000);

      expect(await applyLocalLogRetention(database, { retainMs: 7 * DAY_MS, maxAgeMs: 30 * DAY_MS })).toMatchObject({ deleted: 12 });

      await rebuild.start();
      await waitUntil(() => letters.length === old.length, { timeoutMs: 60_000, what: "the old streams' kept events dead-lettered" });
      await rebuild.catchUp(60_000);
      expect(await readModel(2)).toEqual({ new: [2, 2] });
      expect(letters.map((letter) => [letter.envelope.streamId, letter.envelope.streamVersion, letter.headers[DLQ_HEADERS.errorCode]]).sort()).toEqual(
        old.map((stream) => [stream, 4, 'PROJECTION_STREAM_GAP']),
      );
      expect(await readModel(1)).toEqual({ new: [2, 2], ...Object.fromEntries(old.map((stream) => [stream, [4, 4]])) });
    } finally {
      await Promise.all([serving.stop(), rebuild.stop(), dlq.stop()]);
    }
  }, 120_000);
});
