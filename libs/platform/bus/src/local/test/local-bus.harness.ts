/**
 * What the local adapter's specs share: real databases (a fresh PGlite directory and a fresh database on
 * the Postgres server, through the database library's test helpers) with the bus migrations applied,
 * short consumer timings, buses that record their log lines, raw access to stored topics (to check
 * partitions, offsets and DLQ headers below the port), and a database handle that can be frozen to play
 * a member whose process stalls.
 */
import { applyMigrations, type Database, type DatabaseConfig, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, type TestDatabase, type TestDatabaseKind } from '@trustmesh/platform-database/testing';

import { recordingLogger, type RecordingLogger } from '../../test/bus-events';
import { LOCAL_BUS_MIGRATIONS } from '../local-bus.migrations';
import { createLocalEventBus, type LocalEventBusFactoryOptions } from '../local-event-bus.factory';
import type { LocalEventBus } from '../local-event-bus';
import type { LocalConsumerTuning } from '../local-subscription';
import { appendMessages, ensureTopic, type LogMessage, type StoredMessage } from '../local-log.store';

/** Heartbeats every 50 ms, dead after 1 s; polling slow enough that a passing test shows wake-ups work. */
export const TEST_TUNING: LocalConsumerTuning = {
  heartbeatIntervalMs: 50,
  sessionTimeoutMs: 1_000,
  pollIntervalMs: 2_000,
  fetchBatchSize: 50,
  wakeUpLingerMs: 0,
  partitionsConsumedConcurrently: 1,
};

export const TEST_PARTITIONS = 4;

export interface BusDatabase {
  testDb: TestDatabase;
  /** The first handle, with the bus migrations applied. */
  database: Database;
}

/** A fresh database of `kind` with the platform-bus migrations applied (the deploy step). */
export async function busDatabase(kind: TestDatabaseKind, label: string): Promise<BusDatabase> {
  const testDb = await createTestDatabase(kind, label);
  const database = await testDb.open();
  await applyMigrations(database, [LOCAL_BUS_MIGRATIONS]);
  return { testDb, database };
}

export interface TestBus {
  bus: LocalEventBus;
  logger: RecordingLogger;
}

/** A local bus over `database` (default: the first handle), configured as an app would be, with test timings. */
export function testBus({ testDb, database }: BusDatabase, options: LocalEventBusFactoryOptions & { database?: Database } = {}): Promise<TestBus> {
  const { database: handle = database, ...overrides } = options;
  return localTestBus(testDb.config, handle, overrides);
}

/** A local bus over `database`, opened from `config` (as another process would, from its environment). */
export async function localTestBus(config: DatabaseConfig, database: Database, options: LocalEventBusFactoryOptions = {}): Promise<TestBus> {
  const logger = recordingLogger();
  const { consumer, ...overrides } = options;
  const bus = await createLocalEventBus(
    { bus: { adapter: 'local', kafka: null, topicPrefix: '', maxAttempts: 3, retryBackoffMs: 20, localPartitions: TEST_PARTITIONS }, database: config },
    database,
    { logger, ...overrides, consumer: { ...TEST_TUNING, ...consumer } },
  );
  return { bus, logger };
}

/** Every stored message of a topic (as stored, with any prefix), by partition then offset. */
export async function storedMessages(database: Database, topic: string): Promise<StoredMessage[]> {
  const rows = await database.withConnection((sql: SqlExecutor) =>
    sql.query<{ partition: number; offset: string; key: string; value: string; headers: string }>(
      `SELECT m.partition, m."offset"::text AS "offset", m.key, m.value, m.headers::text AS headers
       FROM bus_messages m WHERE m.topic = $1 ORDER BY m.partition, m."offset"`,
      [topic],
    ),
  );
  return rows.map((row) => ({ ...row, partition: Number(row.partition), headers: JSON.parse(row.headers) as Record<string, string> }));
}

/** Writes messages below the bus's checks, as another (older, broken) producer might. */
export async function appendRaw(database: Database, topic: string, messages: readonly LogMessage[]): Promise<void> {
  await database.withConnection(async (sql) => {
    const partitions = await ensureTopic(sql, topic, TEST_PARTITIONS);
    await sql.transaction((tx) => appendMessages(tx, topic, partitions, messages));
  });
}

export interface FreezableDatabase {
  database: Database;
  /** From now on, every new use of the database waits (a stalled process: no heartbeat, no commit). */
  freeze(): void;
  thaw(): void;
}

export function freezable(inner: Database): FreezableDatabase {
  let frozen: { until: Promise<void>; thaw: () => void } | undefined;
  return {
    database: {
      mode: inner.mode,
      location: inner.location,
      prismaAdapter: () => inner.prismaAdapter(),
      withConnection: async (work) => {
        while (frozen) await frozen.until;
        return inner.withConnection(work);
      },
      close: () => inner.close(),
    },
    freeze: () => {
      if (frozen) return;
      let thaw = () => undefined as void;
      const until = new Promise<void>((resolve) => (thaw = resolve));
      frozen = { until, thaw };
    },
    thaw: () => {
      const current = frozen;
      frozen = undefined;
      current?.thaw();
    },
  };
}

export interface StatementGate {
  /** Statements of the given kind wait from now on, holding their connection (use with the server only). */
  close(): void;
  open(): void;
  /** How many statements wait at the gate now. */
  waiting(): number;
}

export interface GatedDatabase {
  database: Database;
  /** One gate per kind of statement, each matched by the start of its SQL text. */
  gate(sqlStart: string): StatementGate;
}

/**
 * A handle whose statements of a chosen kind (`INSERT INTO bus_partition_leases`, ...) can be held at a
 * gate, so a spec can run a member's round up to one statement, act meanwhile, and let it go on: a
 * deterministic interleaving through the real database. Everything else passes through untouched.
 */
export function gated(inner: Database): GatedDatabase {
  const gates: Array<{ sqlStart: string; held?: Promise<void>; release?: () => void; count: number }> = [];
  const wrap = (sql: SqlExecutor): SqlExecutor => ({
    query: async (text, params) => {
      for (const gate of gates) {
        if (!text.trimStart().startsWith(gate.sqlStart)) continue;
        while (gate.held) {
          gate.count += 1;
          await gate.held.finally(() => (gate.count -= 1));
        }
      }
      return sql.query(text, params);
    },
    exec: (script) => sql.exec(script),
  });
  return {
    database: {
      mode: inner.mode,
      location: inner.location,
      prismaAdapter: () => inner.prismaAdapter(),
      withConnection: (work) => inner.withConnection((sql) => work({ ...wrap(sql), transaction: (body) => sql.transaction(body) })),
      close: () => inner.close(),
    },
    gate: (sqlStart) => {
      const gate: (typeof gates)[number] = { sqlStart, count: 0 };
      gates.push(gate);
      return {
        close: () => {
          if (!gate.held) gate.held = new Promise<void>((resolve) => (gate.release = resolve));
        },
        open: () => {
          const release = gate.release;
          gate.held = undefined;
          gate.release = undefined;
          release?.();
        },
        waiting: () => gate.count,
      };
    },
  };
}
