/**
 * `npm run bench:event-log`, against real parts, each figure with its baseline from the same run:
 *
 * (a) events/s published through the Kafka adapter vs raw kafkajs `producer.send`, same batch size, same
 *     librdkafka mock cluster;
 * (b) events/s appended through the event store vs a raw batched `INSERT` of the same rows (events and
 *     their outbox rows, one transaction per batch) on the same Postgres database;
 * (c) events/s for a projection rebuild of 100,000 events, from the local bus's log on Postgres with the
 *     checkpoints in the same database. (librdkafka's mock cluster keeps a bounded log per partition and
 *     drops the oldest messages of a 100,000-event topic, so it cannot hold the log a rebuild reads.)
 *
 * (a) and (b) interleave their rounds so noise hits candidate and baseline alike; each goal is the
 * median of the per-round ratios.
 */
import { performance } from 'node:perf_hooks';

import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { Pool } from 'pg';

import { createKafkaEventBus, createLocalEventBus, LOCAL_BUS_MIGRATIONS, type BusLogger } from '@trustmesh/platform-bus';
import { applyMigrations, openDatabase, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS, openEventStore } from '@trustmesh/platform-event-store';
import { createEnvelope, toEventMessage, type EventEnvelope } from '@trustmesh/platform-events';
import { PROJECTION_MIGRATIONS, ProjectionRunner, sqlTransactions } from '@trustmesh/platform-projections';
import { startKafkaMock, uniqueName } from '@trustmesh/platform-testing';

const BATCH = 100;
const ROUNDS = 5;
const PUBLISH_EVENTS_PER_ROUND = 10_000;
const APPEND_EVENTS_PER_ROUND = 5_000;
const REBUILD_EVENTS = 100_000;
const QUIET = { logger: { log: () => undefined } };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const rate = (count: number, millis: number) => (count / millis) * 1000;
const format = (value: number) => Math.round(value).toLocaleString('en-US');

function envelopes(count: number, streams: number, prefix: string): EventEnvelope[] {
  return Array.from({ length: count }, (_, i) =>
    createEnvelope(
      { eventType: 'TurnProgressed', data: { turn: i, text: 'The agent ran the integration suite and reported its results.' } },
      { streamId: `${prefix}-${i % streams}`, streamVersion: Math.floor(i / streams) + 1, producer: 'bench@1' },
    ),
  );
}

async function timed(work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function benchPublish(brokers: string[]): Promise<number> {
  const bus = createKafkaEventBus(
    { bus: { adapter: 'kafka', kafka: { brokers, clientId: 'bench-adapter' }, topicPrefix: '', maxAttempts: 3, retryBackoffMs: 100, localPartitions: 4 } },
    QUIET,
  );
  const kafka = new Kafka({ clientId: 'bench-raw', brokers, logLevel: logLevel.NOTHING });
  // The adapter's producer on this cluster: acks=-1, one request in flight (the mock grants no idempotent id).
  const raw = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  await raw.connect();
  const adapterTopic = uniqueName('bench.adapter');
  const rawTopic = uniqueName('bench.raw');
  // Warm both paths (connections, metadata, topic creation).
  await bus.publish(adapterTopic, envelopes(BATCH, 10, 'warm'));
  await raw.send({ topic: rawTopic, acks: -1, messages: envelopes(BATCH, 10, 'warm').map(toEventMessage) });

  const adapterRates: number[] = [];
  const rawRates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const batches = Array.from({ length: PUBLISH_EVENTS_PER_ROUND / BATCH }, (_, b) => envelopes(BATCH, 50, `r${round}b${b}`));
    const rawBatches = batches.map((batch) => batch.map(toEventMessage));
    adapterRates.push(rate(PUBLISH_EVENTS_PER_ROUND, await timed(async () => {
      for (const batch of batches) await bus.publish(adapterTopic, batch);
    })));
    rawRates.push(rate(PUBLISH_EVENTS_PER_ROUND, await timed(async () => {
      for (const messages of rawBatches) await raw.send({ topic: rawTopic, acks: -1, messages });
    })));
  }
  await raw.disconnect();
  await bus.close();
  const ratio = median(adapterRates.map((value, i) => value / (rawRates[i] ?? 1)));
  console.log(`(a) publish, ${PUBLISH_EVENTS_PER_ROUND} events per round in batches of ${BATCH}, ${ROUNDS} interleaved rounds (librdkafka mock cluster):`);
  console.log(`    baseline raw kafkajs producer.send:  ${format(median(rawRates))} events/s  [${rawRates.map(format).join(' ')}]`);
  console.log(`    Kafka adapter bus.publish:           ${format(median(adapterRates))} events/s  [${adapterRates.map(format).join(' ')}]`);
  return ratio;
}

async function benchAppend(url: string): Promise<number> {
  const database = await openDatabase({ mode: 'server', url });
  await applyMigrations(database, [EVENT_STORE_MIGRATIONS]);
  const store = await openEventStore(database, { producer: 'bench@1' });
  const pool = new Pool({ connectionString: url, max: 1 });
  const topic = 'bench.appends.v1';
  const rawInsert = async (batch: EventEnvelope[]) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const values: unknown[] = [];
      const rows = batch.map((envelope, i) => {
        values.push(envelope.eventId, envelope.streamId, envelope.streamVersion, envelope.eventType, envelope.schemaVersion, envelope.occurredAt, envelope.correlationId, envelope.causationId, envelope.traceparent, envelope.producer, JSON.stringify(envelope.data));
        const at = i * 11;
        return `(${Array.from({ length: 11 }, (_, k) => `$${at + k + 1}`).join(',')})`;
      });
      const inserted = await client.query<{ position: string }>(
        `INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, occurred_at, correlation_id, causation_id, traceparent, producer, data)
         VALUES ${rows.join(',')} RETURNING position`,
        values,
      );
      await client.query('INSERT INTO outbox (topic, event_position) SELECT $1, unnest($2::bigint[])', [topic, inserted.rows.map((row) => row.position)]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
  const storeRates: number[] = [];
  const rawRates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // One batch is one stream's next BATCH events: the store appends it with its expected version.
    const batches = Array.from({ length: APPEND_EVENTS_PER_ROUND / BATCH }, (_, b) => ({ stream: `store-r${round}-s${b}`, events: envelopes(BATCH, 1, `raw-r${round}-s${b}`) }));
    storeRates.push(rate(APPEND_EVENTS_PER_ROUND, await timed(async () => {
      for (const { stream, events } of batches) {
        await store.append(stream, 'no-stream', events.map((event) => ({ eventType: event.eventType, data: event.data })), { topic });
      }
    })));
    rawRates.push(rate(APPEND_EVENTS_PER_ROUND, await timed(async () => {
      for (const { events } of batches) await rawInsert(events);
    })));
  }
  await pool.end();
  await store.close();
  await database.close();
  const ratio = median(storeRates.map((value, i) => value / (rawRates[i] ?? 1)));
  console.log(`(b) append, ${APPEND_EVENTS_PER_ROUND} events per round in appends of ${BATCH} (events + outbox rows, one transaction each), ${ROUNDS} interleaved rounds (Postgres 127.0.0.1):`);
  console.log(`    baseline raw batched INSERT (pg):    ${format(median(rawRates))} events/s  [${rawRates.map(format).join(' ')}]`);
  console.log(`    event store append (Prisma):         ${format(median(storeRates))} events/s  [${storeRates.map(format).join(' ')}]`);
  return ratio;
}

async function benchRebuild(url: string): Promise<void> {
  const database = await openDatabase({ mode: 'server', url });
  await applyMigrations(database, [PROJECTION_MIGRATIONS, LOCAL_BUS_MIGRATIONS]);
  await database.withConnection((sql) => sql.exec('CREATE TABLE bench_stream_counts (stream_id TEXT PRIMARY KEY, events INTEGER NOT NULL)'));
  // Count what the bus reports (handler failures, dead letters) by code, so the figure says what it measured.
  const reported = new Map<string, number>();
  const logger: BusLogger = {
    log: (level, message, fields) => {
      if (level === 'debug' || level === 'info') return;
      const key = `${message}${fields?.['code'] ? ` (${String(fields['code'])})` : ''}`;
      reported.set(key, (reported.get(key) ?? 0) + 1);
    },
  };
  const bus = await createLocalEventBus(
    { bus: { adapter: 'local', kafka: null, topicPrefix: '', maxAttempts: 3, retryBackoffMs: 100, localPartitions: 4 }, database: { mode: 'server', url } },
    database,
    { logger },
  );
  const topic = uniqueName('bench.rebuild');
  for (let start = 0; start < REBUILD_EVENTS; start += 1_000) await bus.publish(topic, envelopes(1_000, 200, `rebuild-${start}`));
  const runner = new ProjectionRunner<SqlExecutor>(
    {
      name: 'bench-stream-counts',
      version: 1,
      topics: [topic],
      apply: async (envelope, { tx }) => {
        await tx.query(
          'INSERT INTO bench_stream_counts (stream_id, events) VALUES ($1, 1) ON CONFLICT (stream_id) DO UPDATE SET events = bench_stream_counts.events + 1',
          [envelope.streamId],
        );
      },
    },
    sqlTransactions(database),
    bus,
  );
  const millis = await timed(async () => {
    await runner.start();
    await runner.catchUp(30 * 60_000, 250);
  });
  await runner.stop();
  await bus.close();
  await database.close();
  console.log(`(c) projection rebuild of ${REBUILD_EVENTS.toLocaleString('en-US')} events from the log (local bus on Postgres; each read of a partition, up to 100 events, and its checkpoint in one transaction):`);
  console.log(`    ${format(rate(runner.counters.applied, millis))} events/s (${runner.counters.applied} of ${REBUILD_EVENTS} applied in ${(millis / 1000).toFixed(1)} s)`);
  for (const [what, count] of reported) console.log(`    bus reported ${count}× ${what}`);
  if (runner.counters.applied !== REBUILD_EVENTS) {
    console.log('    the rebuild did not apply every event: this figure is not a valid measurement');
    process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const mock = await startKafkaMock();
  const postgres = await createTestPostgresDatabase('bench-event-log');
  try {
    console.log(`event-log benchmark, node ${process.version}`);
    const publish = await benchPublish(mock.bootstrapServers);
    const append = await benchAppend(postgres.url);
    await benchRebuild(postgres.url);
    console.log(`goal kafka-adapter-vs-kafkajs: ${publish.toFixed(2)}`);
    console.log(`goal store-append-vs-insert: ${append.toFixed(2)}`);
  } finally {
    await postgres.drop();
    await mock.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:event-log failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
