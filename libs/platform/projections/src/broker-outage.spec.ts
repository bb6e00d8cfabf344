/**
 * The event backbone through a broker outage, end to end and on real parts: the event store appends to
 * several streams, the outbox publisher moves the events to the bus, and a projection applies them to a
 * read model that counts every apply of every (stream, version). Mid-stream, after some events were
 * applied and while appends go on, the broker goes away for longer than a consumer session and comes
 * back:
 * - Kafka (librdkafka's mock cluster), on PGlite and on Postgres: every connection of the bus is reset
 *   and new ones are refused (`createBrokerGate`), then let through again;
 * - the local bus, whose broker is the Postgres server: the test database refuses connections and every
 *   backend of it is terminated, then it accepts connections again (`databaseOutage` of
 *   `@trustmesh/platform-database/testing`). The projection's database is down with it for many times the
 *   bus's 3 tries: nothing is dead-lettered.
 * Afterwards every appended event was applied exactly once and in stream order, the outbox is empty, and
 * the projection's checkpoints are at the end of the log. On Kafka the outage lasts 25 s, as in the apps'
 * outage suites, and the operator's log tells it in a few lines: kafkajs' error lines for it stay under 20
 * (there were 651 before the bus collapsed their repeats), and one line says when the cluster answered again.
 */
import { createKafkaEventBus, createLocalEventBus, deadLetterTopic, jsonLineBusLogger, LOCAL_BUS_MIGRATIONS, type BusLogger, type EventBus } from '@trustmesh/platform-bus';
import { KAFKA_TEST_TUNING } from '@trustmesh/platform-bus/testing';
import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, databaseOutage, TEST_DATABASE_KINDS, type DatabaseOutage, type TestDatabase } from '@trustmesh/platform-database/testing';
import { ConcurrencyError, EVENT_STORE_MIGRATIONS, EventStoreError, openEventStore, OutboxPublisher, type EventStore } from '@trustmesh/platform-event-store';
import { createBrokerGate, uniqueName, useKafkaCluster, waitUntil, type BrokerGate } from '@trustmesh/platform-testing';

import { PROJECTION_MIGRATIONS } from './projection-migrations';
import { ProjectionRunner, type ProjectionStatus } from './projection-runner';
import { sqlTransactions } from './projection-transactions';
import { APPLIES_READ_MODEL, appliesProjection } from './test/applies-read-model';

const cluster = useKafkaCluster();

const STREAMS = 6;
/** Appended before the outage, by the end of the outage, and in all (30 versions per stream). */
const PHASES = { beforeOutage: 60, duringOutage: 120, total: 180 } as const;
/** Applied before the broker goes away: some, not all. */
const APPLIED_BEFORE_OUTAGE = 20;
/**
 * The outage outlasts the consumers' sessions, so that groups lose their members and must take them back.
 * Kafka's are as short as a real broker accepts (the same test runs against one with KAFKA_BROKERS).
 */
const KAFKA_SESSION_TIMEOUT_MS = KAFKA_TEST_TUNING.sessionTimeoutMs;
/** How long the Kafka broker stays away: as long as the apps' outage suites hold it, past every consumer session. */
const KAFKA_OUTAGE_MS = Math.max(25_000, KAFKA_SESSION_TIMEOUT_MS + 1_000);
/**
 * kafkajs' error lines one outage may cost (the bus collapses repeats of a failure and logs a retried lost
 * connection at warn, `kafka-log.ts`); before it did, this outage wrote hundreds.
 */
const MAX_KAFKAJS_ERROR_LINES_PER_OUTAGE = 20;
const LOCAL_SESSION_TIMEOUT_MS = 3_000;
const BUS_SETTINGS = { topicPrefix: '', maxAttempts: 3, retryBackoffMs: 20, localPartitions: 4 };

async function appliedCount(database: Database): Promise<number> {
  const [row] = await database.withConnection((sql) => sql.query<{ applied: string }>('SELECT count(*)::text AS applied FROM applies'));
  return Number(row?.applied ?? 0);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An append that failed with one of these may be tried again (the database went away under it). */
const RETRIABLE = new Set(['STORE_FAILED', 'STORE_BUSY']);

/**
 * Appends `PHASES.total` events round-robin over the streams, one event per append, never beyond what the
 * test allows so far. An append the database failed is tried again, as a client would; a conflict after
 * such a failure means the failed try had committed and only its answer was lost.
 */
function startWriter(store: EventStore, topic: string, appended: () => void) {
  let allowance = 0;
  let count = 0;
  let failures = 0;
  const appendOne = async (streamId: string, version: number) => {
    for (let tries = 1; ; tries += 1) {
      try {
        await store.append(streamId, version === 1 ? 'no-stream' : version - 1, [{ eventType: 'CounterIncremented', data: { version } }], { topic });
        return;
      } catch (error) {
        if (!(error instanceof EventStoreError)) throw error;
        if (error instanceof ConcurrencyError && tries > 1 && (await store.streamVersion(streamId).catch(() => 0)) >= version) return;
        if (!RETRIABLE.has(error.code)) throw error;
        failures += 1;
        await pause(50);
      }
    }
  };
  const finished = (async () => {
    for (let index = 0; index < PHASES.total; index += 1) {
      await waitUntil(() => index < allowance, { timeoutMs: 120_000, intervalMs: 10, what: 'the test to allow more appends' });
      await appendOne(`${topic}-s${index % STREAMS}`, Math.floor(index / STREAMS) + 1);
      count += 1;
      appended();
      // A steady stream rather than a burst, so the outage lands between appends.
      await pause(5);
    }
  })();
  finished.catch(() => undefined); // awaited by the test; an early failure must not go unhandled meanwhile
  return {
    allow: (total: number) => void (allowance = total),
    get appended() {
      return count;
    },
    get failures() {
      return failures;
    },
    finished,
  };
}

/** What the read model holds against what the store holds: each event applied once, each stream in order. */
async function applyReport(database: Database, store: EventStore) {
  const events = await store.readAll({ limit: 10_000 });
  const rows = await database.withConnection((sql) =>
    sql.query<{ stream_id: string; stream_version: number; event_id: string; applies: number; first_apply: string }>(
      'SELECT stream_id, stream_version, event_id, applies, first_apply::text AS first_apply FROM applies ORDER BY stream_id, stream_version',
    ),
  );
  const key = (streamId: string, version: number) => `${streamId}@${version}`;
  const applied = new Map(rows.map((row) => [key(row.stream_id, Number(row.stream_version)), row]));
  const appended = new Set(events.map(({ envelope }) => key(envelope.streamId, envelope.streamVersion)));
  const outOfOrder: string[] = [];
  for (let index = 1; index < rows.length; index += 1) {
    const [before, row] = [rows[index - 1]!, rows[index]!];
    if (before.stream_id === row.stream_id && BigInt(before.first_apply) > BigInt(row.first_apply)) outOfOrder.push(key(row.stream_id, Number(row.stream_version)));
  }
  return {
    appended: events.length,
    missing: events.filter(({ envelope }) => applied.get(key(envelope.streamId, envelope.streamVersion))?.event_id !== envelope.eventId).map(({ envelope }) => key(envelope.streamId, envelope.streamVersion)),
    appliedMoreThanOnce: rows.filter((row) => Number(row.applies) !== 1).map((row) => `${key(row.stream_id, Number(row.stream_version))} ×${row.applies}`),
    neverAppended: [...applied.keys()].filter((name) => !appended.has(name)),
    outOfOrder,
  };
}

/** Each partition's checkpoint is its end offset, and the consumer group is not behind either. */
function expectAtEndOfLog(status: ProjectionStatus): void {
  expect(status.totalLag).toBe(0);
  const ends = status.lag.filter((entry) => entry.endOffset !== '0').map((entry) => [entry.partition, entry.endOffset]);
  expect(status.positions.map((position) => [position.partition, position.nextOffset])).toEqual(ends);
}

/** The line the Kafka bus writes once the cluster answers after connection failures (`kafka-log.repeats.ts`). */
const CLUSTER_ANSWERS_AGAIN = 'kafkajs: the cluster answers again';

/**
 * Lines the bus logs at `warn` and above (kafkajs' included), kept rather than printed: an outage is loud;
 * and the lines that say the cluster answers again.
 */
function keptLog(): { logger: BusLogger; lines: string[]; answeredAgain: string[] } {
  const lines: string[] = [];
  const answeredAgain: string[] = [];
  const keep = (line: string) => {
    const { level, msg } = JSON.parse(line) as { level: string; msg: string };
    if (level === 'warn' || level === 'error') lines.push(line);
    else if (msg === CLUSTER_ANSWERS_AGAIN) answeredAgain.push(line);
  };
  return { logger: jsonLineBusLogger('info', keep), lines, answeredAgain };
}

/** The kept lines that kafkajs wrote at `error` (what log-based alerting pages on). */
function kafkajsErrorLines(lines: readonly string[]): string[] {
  return lines.filter((line) => {
    const { level, msg } = JSON.parse(line) as { level: string; msg: string };
    return level === 'error' && msg.startsWith('kafkajs ');
  });
}

interface Backbone {
  testDb: TestDatabase;
  database: Database;
}

async function backbone(kind: (typeof TEST_DATABASE_KINDS)[number], label: string): Promise<Backbone> {
  const testDb = await createTestDatabase(kind, label);
  const database = await testDb.open();
  // A server database is migrated by the deploy step before services start; here, by the test.
  await applyMigrations(database, [EVENT_STORE_MIGRATIONS, PROJECTION_MIGRATIONS, LOCAL_BUS_MIGRATIONS]);
  await database.withConnection((sql) => sql.exec(APPLIES_READ_MODEL));
  return { testDb, database };
}

describe.each(TEST_DATABASE_KINDS)('the event backbone on %s, through a Kafka broker outage', (kind) => {
  let testDb: TestDatabase | undefined;
  let gate: BrokerGate | undefined;
  let bus: EventBus | undefined;

  afterAll(async () => {
    gate?.up();
    await bus?.close();
    await testDb?.dispose();
  }, 60_000);

  it('applies every event exactly once, in stream order, and drains the outbox once the broker is back', async () => {
    const setup = await backbone(kind, 'kafka-outage');
    testDb = setup.testDb;
    const { database } = setup;
    const brokerGate = createBrokerGate();
    gate = brokerGate;
    const log = keptLog();
    const kafkaBus = createKafkaEventBus(
      { bus: { adapter: 'kafka', kafka: { brokers: cluster.brokers, clientId: 'broker-outage-test' }, ...BUS_SETTINGS } },
      {
        consumer: KAFKA_TEST_TUNING,
        // kafkajs gives a request up after ~1.5 s of refused connections instead of its default ~10 s.
        retry: { initialRetryTime: 100, retries: 3, maxRetryTime: 1_000 },
        connectionTimeoutMs: 1_000,
        healthTimeoutMs: 2_000,
        socketFactory: brokerGate.socketFactory,
        logger: log.logger,
      },
    );
    bus = kafkaBus;
    const topic = uniqueName('projection.kafka-outage');
    const store = await openEventStore(database, { producer: 'broker-outage-test@1' });
    const publisher = new OutboxPublisher(store, bus, { idleMs: 20, maxBackoffMs: 500, batchSize: 20 });
    const runner = new ProjectionRunner(appliesProjection({ name: 'outage-applies', topic }), sqlTransactions(database), bus);
    try {
      await runner.start();
      publisher.start();
      const writer = startWriter(store, topic, () => publisher.kick());

      writer.allow(PHASES.beforeOutage);
      await waitUntil(async () => (await appliedCount(database)) >= APPLIED_BEFORE_OUTAGE, { timeoutMs: 60_000, what: `${APPLIED_BEFORE_OUTAGE} applied events` });
      // The mock gives no idempotent producer (kafka-producer.ts): ready, and the health says publishing is degraded.
      expect(await bus.health()).toEqual({ adapter: 'kafka', ready: true, ...(kafkaBus.producerMode === 'acks-all' ? { degraded: ['PRODUCER_NOT_IDEMPOTENT'] } : {}) });

      // The broker goes away mid-stream.
      const downAt = Date.now();
      const appendedAtDown = writer.appended;
      const failuresAtDown = publisher.stats.failures;
      const logLinesAtDown = log.lines.length;
      const answeredAgainAtDown = log.answeredAgain.length;
      expect(brokerGate.down()).toBeGreaterThan(0);
      writer.allow(PHASES.duringOutage);
      await waitUntil(async () => !(await bus!.health()).ready, { timeoutMs: 15_000, what: 'the bus to report the broker unreachable' });
      expect(await bus.health()).toEqual({ adapter: 'kafka', ready: false, reason: 'BROKER_UNREACHABLE' });
      await waitUntil(() => writer.appended >= PHASES.duringOutage, { timeoutMs: 30_000, what: 'the appends made during the outage' });
      // How publishing shows the outage depends on the producer (kafka-producer.ts): the acks-all one (the
      // mock's) gives a publish up and the outbox tries again later; an idempotent one waits it out.
      if (kafkaBus.producerMode === 'acks-all') {
        await waitUntil(() => publisher.stats.failures >= failuresAtDown + 2, { timeoutMs: 30_000, what: 'failed publish attempts' });
      } else {
        expect(kafkaBus.producerMode).toBe('idempotent');
      }
      await waitUntil(() => Date.now() >= downAt + KAFKA_OUTAGE_MS, { timeoutMs: 60_000, what: 'the outage to outlast the consumer sessions' });
      // Nothing appended during the outage reached the broker: the outbox holds it all.
      expect(await store.outboxBacklog()).toBeGreaterThanOrEqual(writer.appended - appendedAtDown);
      expect(brokerGate.stats.refused).toBeGreaterThan(0);
      // Operators see it in the bus's log.
      expect(log.lines.length).toBeGreaterThan(logLinesAtDown);

      // The broker is back; appends go on while the backlog drains.
      brokerGate.up();
      writer.allow(PHASES.total);
      await waitUntil(async () => (await bus!.health()).ready, { timeoutMs: 30_000, what: 'the bus to report ready again' });
      await writer.finished;
      await waitUntil(async () => (await store.outboxBacklog()) === 0, { timeoutMs: 60_000, what: 'the outbox backlog to drain' });
      const status = await runner.catchUp(60_000);

      expect(await applyReport(database, store)).toEqual({ appended: PHASES.total, missing: [], appliedMoreThanOnce: [], neverAppended: [], outOfOrder: [] });
      expectAtEndOfLog(status);
      expect(publisher.stats.published).toBe(PHASES.total);
      expect(runner.counters.applied).toBe(PHASES.total);
      // The outage and the recovery after it page an operator a few times, not once per refused connection.
      expect(kafkajsErrorLines(log.lines.slice(logLinesAtDown)).length).toBeLessThan(MAX_KAFKAJS_ERROR_LINES_PER_OUTAGE);
      // And one line says when it was over.
      expect(log.answeredAgain.length).toBeGreaterThan(answeredAgainAtDown);
    } finally {
      await runner.stop();
      await publisher.stop();
      await store.close();
    }
  }, 150_000);
});

describe('the event backbone on postgres, through a database outage under the local bus', () => {
  let testDb: TestDatabase | undefined;
  let outage: DatabaseOutage | undefined;
  let bus: EventBus | undefined;

  afterAll(async () => {
    await outage?.dispose();
    await bus?.close();
    await testDb?.dispose();
  }, 60_000);

  it('applies every event exactly once, in stream order, and drains the outbox once the database is back', async () => {
    const setup = await backbone('postgres', 'local-outage');
    testDb = setup.testDb;
    const { database } = setup;
    const databaseGoes = await databaseOutage(testDb);
    outage = databaseGoes;
    const log = keptLog();
    bus = await createLocalEventBus({ bus: { adapter: 'local', kafka: null, ...BUS_SETTINGS }, database: testDb.config }, database, {
      consumer: { heartbeatIntervalMs: 200, sessionTimeoutMs: LOCAL_SESSION_TIMEOUT_MS, pollIntervalMs: 500 },
      // The outage outlasts many times the 3 tries: the runner's failures in it are transient and use none up.
      maxRetryBackoffMs: 500,
      logger: log.logger,
    });
    const topic = uniqueName('projection.local-outage');
    const store = await openEventStore(database, { producer: 'broker-outage-test@1' });
    const publisher = new OutboxPublisher(store, bus, { idleMs: 20, maxBackoffMs: 500, batchSize: 20 });
    const runner = new ProjectionRunner(appliesProjection({ name: 'outage-applies', topic }), sqlTransactions(database), bus);
    try {
      await runner.start();
      publisher.start();
      const writer = startWriter(store, topic, () => publisher.kick());

      writer.allow(PHASES.beforeOutage);
      await waitUntil(async () => (await appliedCount(database)) >= APPLIED_BEFORE_OUTAGE, { timeoutMs: 60_000, what: `${APPLIED_BEFORE_OUTAGE} applied events` });
      expect(await bus.health()).toEqual({ adapter: 'local', ready: true });

      const downAt = Date.now();
      const logLinesAtDown = log.lines.length;
      expect(await databaseGoes.down()).toBeGreaterThan(0);
      writer.allow(PHASES.duringOutage);
      await waitUntil(async () => !(await bus!.health()).ready, { timeoutMs: 15_000, what: 'the bus to report the database unreachable' });
      expect(await bus.health()).toEqual({ adapter: 'local', ready: false, reason: 'DATABASE_UNREACHABLE' });
      // Appends are refused while the database is away, with a code a caller can retry on.
      await waitUntil(() => writer.failures >= 2, { timeoutMs: 30_000, what: 'appends refused during the outage' });
      await waitUntil(() => Date.now() >= downAt + LOCAL_SESSION_TIMEOUT_MS + 1_000, { timeoutMs: 30_000, what: 'the consumer sessions to expire' });
      expect(log.lines.length).toBeGreaterThan(logLinesAtDown);

      await databaseGoes.up();
      writer.allow(PHASES.total);
      await waitUntil(async () => (await bus!.health()).ready, { timeoutMs: 30_000, what: 'the bus to report ready again' });
      await writer.finished;
      await waitUntil(async () => (await store.outboxBacklog()) === 0, { timeoutMs: 60_000, what: 'the outbox backlog to drain' });
      const status = await runner.catchUp(60_000);

      expect(await applyReport(database, store)).toEqual({ appended: PHASES.total, missing: [], appliedMoreThanOnce: [], neverAppended: [], outOfOrder: [] });
      expectAtEndOfLog(status);
      expect(publisher.stats.published).toBe(PHASES.total);
      expect(runner.counters.applied).toBe(PHASES.total);
      // Nothing was dead-lettered: the outage was the database's fault, not the events'.
      const [dead] = await database.withConnection((sql) =>
        sql.query<{ held: number }>('SELECT count(*)::integer AS held FROM bus_messages WHERE topic = $1', [deadLetterTopic(topic)]),
      );
      expect(Number(dead?.held)).toBe(0);
    } finally {
      await runner.stop();
      await publisher.stop();
      await store.close();
    }
  }, 120_000);
});
