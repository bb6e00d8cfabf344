/**
 * A projection whose own database goes away for many times longer than the bus's retry budget, while the
 * bus itself stays up (Kafka on librdkafka's mock cluster, or the local bus on a database of its own): the
 * events that arrive meanwhile are not dead-lettered. The runner's failures are transient: the partition
 * waits on its event, says so (`retrying()`, a warn line with a stable code and no error text), and once
 * the database is back every event is applied exactly once and in stream order. An event the projection's
 * own `apply` rejects is still a poison message: it gets its tries and goes to the DLQ.
 */
import { createKafkaEventBus, createLocalEventBus, deadLetterTopic, DLQ_HEADERS, jsonLineBusLogger, type EventBus } from '@trustmesh/platform-bus';
import { KAFKA_TEST_TUNING, TEST_BUS_KINDS, type TestBusKind } from '@trustmesh/platform-bus/testing';
import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, databaseOutage, type DatabaseOutage, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import { readTopic, uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { PROJECTION_MIGRATIONS } from './projection-migrations';
import { PROJECTION_DATABASE_UNAVAILABLE, PROJECTION_STREAM_GAP, ProjectionRunner } from './projection-runner';
import { sqlTransactions } from './projection-transactions';
import { APPLIES_READ_MODEL, appliesProjection } from './test/applies-read-model';

const cluster = useKafkaCluster();

const MAX_ATTEMPTS = 3;
const BUS_SETTINGS = { topicPrefix: '', maxAttempts: MAX_ATTEMPTS, retryBackoffMs: 20, localPartitions: 4 };
const STREAMS = 4;

function events(streamIds: readonly string[], fromVersion: number, toVersion: number): EventEnvelope[] {
  const out: EventEnvelope[] = [];
  for (let version = fromVersion; version <= toVersion; version += 1) {
    for (const streamId of streamIds) out.push(createEnvelope({ eventType: 'CounterIncremented', data: { version } }, { streamId, streamVersion: version, producer: 'test@1' }));
  }
  return out;
}

/** Per stream, the versions applied in the order they were first applied, and every event applied more than once. */
async function appliedReport(database: Database): Promise<{ versions: Record<string, number[]>; repeated: string[] }> {
  const rows = await database.withConnection((sql) =>
    sql.query<{ stream_id: string; stream_version: number; applies: number }>('SELECT stream_id, stream_version, applies FROM applies ORDER BY first_apply'),
  );
  const versions: Record<string, number[]> = {};
  for (const row of rows) versions[row.stream_id] = [...(versions[row.stream_id] ?? []), Number(row.stream_version)];
  return { versions, repeated: rows.filter((row) => Number(row.applies) !== 1).map((row) => `${row.stream_id}:${row.stream_version}`) };
}

interface DeadLetter {
  key: string | null;
  headers: Record<string, string>;
}

interface OutageBus {
  bus: EventBus;
  /** What the topic's DLQ holds now. */
  deadLetters(topic: string): Promise<DeadLetter[]>;
  dispose(): Promise<void>;
}

/** The bus of `kind`, up for the whole test: Kafka, or the local bus on a PGlite database of its own. */
async function openOutageBus(kind: TestBusKind, logLine: (line: string) => void): Promise<OutageBus> {
  const logger = jsonLineBusLogger('info', logLine);
  if (kind === 'kafka') {
    const bus = createKafkaEventBus(
      { bus: { adapter: 'kafka', kafka: { brokers: cluster.brokers, clientId: 'database-outage-test' }, ...BUS_SETTINGS } },
      { consumer: KAFKA_TEST_TUNING, maxRetryBackoffMs: 200, logger },
    );
    return {
      bus,
      deadLetters: async (topic) => readTopic(cluster.brokers, deadLetterTopic(topic), { minMessages: 0 }),
      dispose: () => bus.close(),
    };
  }
  const busDb = await createTestDatabase('pglite', 'database-outage-bus');
  const database = await busDb.open();
  const bus = await createLocalEventBus({ bus: { adapter: 'local', kafka: null, ...BUS_SETTINGS }, database: busDb.config }, database, {
    consumer: { heartbeatIntervalMs: 50, sessionTimeoutMs: 1_000, pollIntervalMs: 200 },
    maxRetryBackoffMs: 200,
    logger,
  });
  return {
    bus,
    deadLetters: async (topic) => {
      const rows = await database.withConnection((sql) =>
        sql.query<{ key: string; headers: string }>('SELECT key, headers::text AS headers FROM bus_messages WHERE topic = $1 ORDER BY partition, "offset"', [deadLetterTopic(topic)]),
      );
      return rows.map((row) => ({ key: row.key, headers: JSON.parse(row.headers) as Record<string, string> }));
    },
    dispose: async () => {
      await bus.close();
      await database.close();
      await busDb.dispose();
    },
  };
}

describe.each(TEST_BUS_KINDS)('a projection on postgres over the %s bus, through an outage of its own database', (busKind) => {
  let testDb: TestDatabase | undefined;
  let outage: DatabaseOutage | undefined;
  let opened: OutageBus | undefined;

  afterAll(async () => {
    await outage?.dispose();
    await opened?.dispose();
    await testDb?.dispose();
  }, 60_000);

  it('dead-letters nothing while the database is away, however long, and applies every event once, in order, when it is back', async () => {
    testDb = await createTestDatabase('postgres', 'projection-database-outage');
    const database = await testDb.open();
    await applyMigrations(database, [PROJECTION_MIGRATIONS]);
    await database.withConnection((sql) => sql.exec(APPLIES_READ_MODEL));
    const databaseGoes = await databaseOutage(testDb);
    outage = databaseGoes;
    const lines: string[] = [];
    const busUnderTest = await openOutageBus(busKind, (line) => void lines.push(line));
    opened = busUnderTest;
    const { bus } = busUnderTest;
    const topic = uniqueName('projection.database-outage');
    const streams = Array.from({ length: STREAMS }, (_, index) => `counter-${index}`);
    const projection = appliesProjection({ name: 'database-outage', topic, rejects: (envelope) => envelope.streamId === 'poison' && envelope.streamVersion === 1 });
    const runner = new ProjectionRunner(projection, sqlTransactions(database), bus, { gapHoldMs: 500 });
    try {
      await runner.start();
      await bus.publish(topic, events(streams, 1, 3));
      await runner.catchUp(30_000);

      // The projection's database goes away; the bus does not, and events keep coming.
      expect(await databaseGoes.down()).toBeGreaterThan(0);
      await bus.publish(topic, events(streams, 4, 6));
      await waitUntil(() => runner.retrying().some(({ transientFailures }) => transientFailures > MAX_ATTEMPTS * 2), {
        timeoutMs: 30_000,
        what: `a partition to fail transiently more than ${MAX_ATTEMPTS * 2} times`,
      });
      // The stuck partitions say why they wait; nothing was dead-lettered for the outage.
      expect(runner.retrying().every(({ code, topic: retried }) => code === PROJECTION_DATABASE_UNAVAILABLE && retried === topic)).toBe(true);
      expect(await busUnderTest.deadLetters(topic)).toEqual([]);
      const transientLines = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter(({ msg }) => String(msg).includes('failed transiently'));
      expect(transientLines.length).toBeGreaterThan(0);
      expect(transientLines.every((line) => line['level'] === 'warn' && line['code'] === PROJECTION_DATABASE_UNAVAILABLE)).toBe(true);
      // The database's error text (which names it) stays out of the bus's logs.
      expect(lines.join('\n')).not.toContain(databaseGoes.name);

      await databaseGoes.up();
      // A poison event still gets its tries and goes to the DLQ; the event behind it in its stream is never
      // applied over the hole: held for a moment, then dead-lettered too, as a gap.
      await bus.publish(topic, events(['poison'], 1, 2));
      await bus.publish(topic, events(streams, 7, 8));
      await runner.catchUp(60_000);

      expect(await appliedReport(database)).toEqual({
        versions: Object.fromEntries(streams.map((stream) => [stream, [1, 2, 3, 4, 5, 6, 7, 8]])),
        repeated: [],
      });
      expect(runner.counters.applied).toBe(STREAMS * 8);
      expect(runner.retrying()).toEqual([]);
      const letters = await busUnderTest.deadLetters(topic);
      expect(letters).toHaveLength(2);
      expect(letters[0]).toMatchObject({ key: 'poison', headers: { [DLQ_HEADERS.attempts]: String(MAX_ATTEMPTS), [DLQ_HEADERS.errorCode]: 'HANDLER_FAILED' } });
      expect(letters[1]).toMatchObject({ key: 'poison', headers: { [DLQ_HEADERS.errorCode]: PROJECTION_STREAM_GAP } });
    } finally {
      await runner.stop();
      await database.close();
    }
  }, 120_000);
});
