/**
 * The projection runner's runs: the local bus hands each read of a partition to the runner at once, and
 * the runner applies the run's events in ONE transaction with one checkpoint write. Whatever would not
 * simply be applied (a gap, a failing apply) sends the run back to be handled one event at a time, with
 * exactly the outcomes of a runner without runs. On PGlite and on the Postgres server. (The kafka adapter
 * delivers one record at a time, so these are local-bus tests.)
 */
import { DLQ_HEADERS, LOCAL_BUS_MIGRATIONS, deadLetterTopic, type BusRecord, type EventBus } from '@trustmesh/platform-bus';
import { openTestBus } from '@trustmesh/platform-bus/testing';
import { applyMigrations, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import { uniqueName, waitUntil } from '@trustmesh/platform-testing';

import { PROJECTION_STREAM_GAP, ProjectionRunner, type ProjectionDefinition } from './projection-runner';
import { PROJECTION_MIGRATIONS } from './projection-migrations';
import { sqlTransactions } from './projection-transactions';

interface ApplyCall {
  streamId: string;
  streamVersion: number;
  partition: number;
  /** The transaction `apply` ran in. */
  txid: string;
}

/** A read model of per-stream counts that notes each `apply` call and its transaction; `fail` may refuse one. */
function countingProjection(topic: string, calls: ApplyCall[], fail?: (envelope: EventEnvelope) => boolean): ProjectionDefinition<SqlExecutor> {
  const name = uniqueName('runs');
  return {
    name,
    version: 1,
    topics: [topic],
    async apply(envelope, { tx, record }) {
      const [row] = await tx.query<{ txid: string }>('SELECT txid_current()::text AS txid');
      calls.push({ streamId: envelope.streamId, streamVersion: envelope.streamVersion, partition: record.partition, txid: row?.txid ?? '' });
      if (fail?.(envelope)) throw new Error('read model refused the event');
      await tx.query(
        `INSERT INTO run_counts (projection, stream_id, events, last_version) VALUES ($1, $2, 1, $3)
         ON CONFLICT (projection, stream_id) DO UPDATE SET events = run_counts.events + 1, last_version = EXCLUDED.last_version`,
        [name, envelope.streamId, envelope.streamVersion],
      );
    },
  };
}

/**
 * The same read model with `applyRun`: notes the versions of each run it is handed; `failRun` may refuse a
 * run (its events then come one by one to `apply`, noted in `calls`).
 */
function runAwareProjection(topic: string, runs: number[][], calls: ApplyCall[], failRun?: (envelopes: readonly EventEnvelope[]) => boolean): ProjectionDefinition<SqlExecutor> {
  const base = countingProjection(topic, calls);
  return {
    ...base,
    async applyRun(envelopes, { tx, records }) {
      runs.push(envelopes.map((event) => event.streamVersion));
      expect(records.map((record) => record.envelope)).toEqual(envelopes);
      if (failRun?.(envelopes)) throw new Error('read model refused the run');
      for (const event of envelopes) {
        await tx.query(
          `INSERT INTO run_counts (projection, stream_id, events, last_version) VALUES ($1, $2, 1, $3)
           ON CONFLICT (projection, stream_id) DO UPDATE SET events = run_counts.events + 1, last_version = EXCLUDED.last_version`,
          [base.name, event.streamId, event.streamVersion],
        );
      }
    },
  };
}

function envelope(streamId: string, streamVersion: number): EventEnvelope {
  return createEnvelope({ eventType: 'CounterIncremented', data: { by: 1 } }, { streamId, streamVersion, producer: 'test@1' });
}

describe.each(TEST_DATABASE_KINDS)('the projection runner applying runs of a partition on %s over the local bus', (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  let bus: EventBus;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'projection-runs');
    database = await testDb.open();
    await applyMigrations(database, [PROJECTION_MIGRATIONS, LOCAL_BUS_MIGRATIONS]);
    await database.withConnection((sql) =>
      sql.exec('CREATE TABLE run_counts (projection TEXT, stream_id TEXT, events INTEGER NOT NULL, last_version INTEGER NOT NULL, PRIMARY KEY (projection, stream_id))'),
    );
    bus = await openTestBus('local', { database, databaseConfig: testDb.config });
  }, 120_000);

  afterAll(async () => {
    await bus?.close();
    await testDb?.dispose();
  }, 60_000);

  async function readModel(projection: string): Promise<Record<string, [number, number]>> {
    const rows = await database.withConnection((sql) =>
      sql.query<{ stream_id: string; events: number; last_version: number }>('SELECT stream_id, events, last_version FROM run_counts WHERE projection = $1 ORDER BY stream_id', [projection]),
    );
    return Object.fromEntries(rows.map((row) => [row.stream_id, [Number(row.events), Number(row.last_version)]]));
  }

  /** What the runner keeps for a stream: its applied version and the versions whose event ids it kept. */
  async function kept(projection: string, streamId: string): Promise<{ version: number | undefined; ids: number[] }> {
    return database.withConnection(async (sql) => {
      const [stream] = await sql.query<{ stream_version: string }>(
        'SELECT stream_version::text AS stream_version FROM projection_stream_versions WHERE projection = $1 AND stream_id = $2',
        [projection, streamId],
      );
      const ids = await sql.query<{ stream_version: string }>(
        'SELECT stream_version::text AS stream_version FROM projection_applied_events WHERE projection = $1 AND stream_id = $2 ORDER BY stream_version',
        [projection, streamId],
      );
      return { version: stream ? Number(stream.stream_version) : undefined, ids: ids.map((row) => Number(row.stream_version)) };
    });
  }

  async function watchDeadLetters(topic: string): Promise<{ letters: BusRecord[]; stop: () => Promise<void> }> {
    const letters: BusRecord[] = [];
    const subscription = await bus.subscribe({ groupId: uniqueName('dlq-reader'), topics: [deadLetterTopic(topic)], handler: async (record) => void letters.push(record) });
    return { letters, stop: () => subscription.stop() };
  }

  it("applies a partition's consecutive events in one transaction each, every event once and in stream order", async () => {
    const topic = uniqueName('runs.together');
    const calls: ApplyCall[] = [];
    const definition = countingProjection(topic, calls);
    // Published before the runner starts: each partition's first read holds all of its events.
    await bus.publish(topic, [1, 2, 3, 4].flatMap((version) => ['a', 'b', 'c', 'd', 'e'].map((stream) => envelope(stream, version))));
    const runner = new ProjectionRunner(definition, sqlTransactions(database), bus);
    await runner.start();
    const status = await runner.catchUp(60_000);
    await runner.stop();

    expect(await readModel(definition.name)).toEqual({ a: [4, 4], b: [4, 4], c: [4, 4], d: [4, 4], e: [4, 4] });
    expect(runner.counters).toEqual({ applied: 20, skipped: 0 });
    expect(status.positions.reduce((sum, position) => sum + Number(position.nextOffset), 0)).toBe(20);
    const partitions = new Set(calls.map((call) => call.partition));
    // One transaction per partition, none shared between partitions.
    for (const partition of partitions) expect(new Set(calls.filter((call) => call.partition === partition).map((call) => call.txid)).size).toBe(1);
    expect(new Set(calls.map((call) => call.txid)).size).toBe(partitions.size);
    expect(calls).toHaveLength(20);
  }, 120_000);

  it('skips copies in the middle of a run, of events applied before it and of events of the run itself, without leaving the run', async () => {
    const topic = uniqueName('runs.copies');
    const calls: ApplyCall[] = [];
    const definition = countingProjection(topic, calls);
    const [v1, v2, v3] = [envelope('copied', 1), envelope('copied', 2), envelope('copied', 3)];
    const transactions = sqlTransactions(database);
    await bus.publish(topic, [v1]);
    const first = new ProjectionRunner(definition, transactions, bus);
    await first.start();
    await first.catchUp(60_000);
    await first.stop();

    // The outbox published v1 again, and v2 twice: one read of the partition holds all of these.
    await bus.publish(topic, [v1, v2, v2, v3]);
    const second = new ProjectionRunner(definition, transactions, bus);
    await second.start();
    await second.catchUp(60_000);
    await second.stop();

    expect(second.counters).toEqual({ applied: 2, skipped: 2 });
    expect(await readModel(definition.name)).toEqual({ copied: [3, 3] });
    expect(calls.map((call) => call.streamVersion)).toEqual([1, 2, 3]);
    // v2 and v3 went through in one transaction: the copies did not send the run back.
    expect(calls[1]?.txid).toBe(calls[2]?.txid);
    expect(await kept(definition.name, 'copied')).toEqual({ version: 3, ids: [1, 2, 3] });
  }, 120_000);

  it('applies the events before a gap in the middle of a run, and holds the event after it (then dead-letters it and the rest of its stream)', async () => {
    const topic = uniqueName('runs.gap');
    const calls: ApplyCall[] = [];
    const definition = countingProjection(topic, calls);
    const dlq = await watchDeadLetters(topic);
    const events = [envelope('gappy', 1), envelope('gappy', 2), envelope('gappy', 4), envelope('gappy', 5)];
    await bus.publish(topic, events);
    const runner = new ProjectionRunner(definition, sqlTransactions(database), bus, { gapHoldMs: 5_000 });
    await runner.start();

    // Held: the partition waits on v4 (no try used up) while v1 and v2 are in the read model.
    await waitUntil(() => runner.retrying().some((partition) => partition.code === PROJECTION_STREAM_GAP), { timeoutMs: 60_000 });
    const [held] = runner.retrying();
    expect(await readModel(definition.name)).toEqual({ gappy: [2, 2] });
    expect(await kept(definition.name, 'gappy')).toEqual({ version: 2, ids: [1, 2] });
    const { positions } = await runner.status();
    expect(positions.find((position) => position.partition === held?.partition)?.nextOffset).toBe(held?.offset);

    // The hold runs out: v4 and v5 go to the DLQ with the gap's code; nothing past v2 was ever applied.
    await waitUntil(() => dlq.letters.length === 2, { timeoutMs: 60_000 });
    await runner.catchUp(60_000);
    await runner.stop();
    await dlq.stop();
    expect(dlq.letters.map((letter) => [letter.envelope.streamVersion, letter.headers[DLQ_HEADERS.errorCode]])).toEqual([
      [4, PROJECTION_STREAM_GAP],
      [5, PROJECTION_STREAM_GAP],
    ]);
    expect(await readModel(definition.name)).toEqual({ gappy: [2, 2] });
    expect(calls.map((call) => call.streamVersion)).toEqual([1, 2]);
    expect(runner.counters).toEqual({ applied: 2, skipped: 0 });
  }, 120_000);

  it('writes nothing of a run whose apply fails midway: its earlier events are applied again one by one, each committed once, and the failing one is dead-lettered', async () => {
    const topic = uniqueName('runs.failure');
    const calls: ApplyCall[] = [];
    const definition = countingProjection(topic, calls, (event) => event.streamVersion === 3);
    const dlq = await watchDeadLetters(topic);
    await bus.publish(topic, [envelope('failing', 1), envelope('failing', 2), envelope('failing', 3)]);
    const runner = new ProjectionRunner(definition, sqlTransactions(database), bus);
    await runner.start();
    await waitUntil(() => dlq.letters.length === 1, { timeoutMs: 60_000 });
    await runner.catchUp(60_000);
    await runner.stop();
    await dlq.stop();

    expect(dlq.letters[0]?.envelope.streamVersion).toBe(3);
    expect(dlq.letters[0]?.headers[DLQ_HEADERS.errorCode]).toBe('HANDLER_FAILED');
    // v1 and v2 count once each although `apply` ran for them twice: the run's transaction rolled back.
    expect(await readModel(definition.name)).toEqual({ failing: [2, 2] });
    expect(await kept(definition.name, 'failing')).toEqual({ version: 2, ids: [1, 2] });
    expect(runner.counters).toEqual({ applied: 2, skipped: 0 });
    // The run (1, 2, 3 in one transaction, rolled back), then one event at a time: 3 gets its tries.
    const [run, ...oneByOne] = [calls.slice(0, 3), ...calls.slice(3)];
    expect(run?.map((call) => call.streamVersion)).toEqual([1, 2, 3]);
    expect(new Set(run?.map((call) => call.txid)).size).toBe(1);
    expect(oneByOne.map((call) => call.streamVersion)).toEqual([1, 2, 3, 3, 3]);
    expect(new Set(oneByOne.map((call) => call.txid)).size).toBe(5);
  }, 120_000);

  it("hands a run's events to the projection's applyRun in one call, copies left out; a refused run goes one by one to apply", async () => {
    const topic = uniqueName('runs.apply-run');
    const runs: number[][] = [];
    const calls: ApplyCall[] = [];
    const definition = runAwareProjection(topic, runs, calls);
    const [v1, v2, v3, v4] = [1, 2, 3, 4].map((version) => envelope('lot', version));
    await bus.publish(topic, [v1, v2, v2, v3, v4].filter((event): event is EventEnvelope => event !== undefined));
    const runner = new ProjectionRunner(definition, sqlTransactions(database), bus);
    await runner.start();
    await runner.catchUp(60_000);
    await runner.stop();
    expect(runs).toEqual([[1, 2, 3, 4]]);
    expect(calls).toEqual([]);
    expect(runner.counters).toEqual({ applied: 4, skipped: 1 });
    expect(await readModel(definition.name)).toEqual({ lot: [4, 4] });
    expect(await kept(definition.name, 'lot')).toEqual({ version: 4, ids: [1, 2, 3, 4] });

    const refusedTopic = uniqueName('runs.apply-run-refused');
    const refusedRuns: number[][] = [];
    const oneByOne: ApplyCall[] = [];
    const refusing = runAwareProjection(refusedTopic, refusedRuns, oneByOne, () => true);
    await bus.publish(refusedTopic, [1, 2, 3].map((version) => envelope('refused', version)));
    const second = new ProjectionRunner(refusing, sqlTransactions(database), bus);
    await second.start();
    await second.catchUp(60_000);
    await second.stop();
    expect(refusedRuns).toEqual([[1, 2, 3]]);
    expect(oneByOne.map((call) => call.streamVersion)).toEqual([1, 2, 3]);
    expect(new Set(oneByOne.map((call) => call.txid)).size).toBe(3);
    expect(await readModel(refusing.name)).toEqual({ refused: [3, 3] });
    expect(second.counters).toEqual({ applied: 3, skipped: 0 });
  }, 120_000);
});
