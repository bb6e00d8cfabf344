/**
 * The maintenance scheduler against real parts, on PGlite and on the Postgres server: an event store whose
 * outbox an `OutboxPublisher` moves to the local bus, a projection runner consuming the topic, and the
 * scheduler with the platform's tasks built from the default configuration. History is made old by moving
 * its timestamps back; the outcome is the rows gone from the tables.
 */
import { LOCAL_BUS_MIGRATIONS, type EventBus } from '@trustmesh/platform-bus';
import { openTestBus } from '@trustmesh/platform-bus/testing';
import { loadPlatformConfig } from '@trustmesh/platform-config';
import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS, OutboxPublisher, openEventStore, type EventStore } from '@trustmesh/platform-event-store';
import type { Logger, LogFields, LogLevel } from '@trustmesh/platform-logging';
import { PROJECTION_MIGRATIONS, ProjectionRunner, sqlTransactions } from '@trustmesh/platform-projections';
import { uniqueName, waitUntil } from '@trustmesh/platform-testing';

import { MaintenanceScheduler, type MaintenanceTask } from './maintenance-scheduler';
import { platformMaintenanceTasks } from './platform-maintenance.tasks';

function recordingLogger(): Logger & { lines: Array<{ level: LogLevel; message: string; fields: LogFields }> } {
  const lines: Array<{ level: LogLevel; message: string; fields: LogFields }> = [];
  return { lines, log: (level, message, fields = {}) => void lines.push({ level, message, fields }) };
}

describe.each(TEST_DATABASE_KINDS)('the maintenance scheduler on %s', (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  let store: EventStore;
  let bus: EventBus;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'maintenance');
    database = await testDb.open();
    await applyMigrations(database, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS]);
    store = await openEventStore(database, { producer: 'maintenance-test@1' });
    bus = await openTestBus('local', { database, databaseConfig: testDb.config });
  }, 60_000);

  afterAll(async () => {
    await bus?.close();
    await store?.close();
    await testDb?.dispose();
  }, 60_000);

  const count = async (sql: string, params: unknown[] = []) =>
    database.withConnection(async (connection) => Number((await connection.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${sql}`, params))[0]?.n));
  const backdate = (table: string, column: string, days: number) =>
    database.withConnection((sql) => sql.query(`UPDATE ${table} SET ${column} = now() - $1::integer * interval '1 day'`, [days]));

  it('purges the outbox, the projections\' history and the bus log on its schedule, keeps the events, and stops cleanly', async () => {
    const topic = uniqueName('maintained.things.v1');
    const projection = { name: uniqueName('things'), version: 1, topics: [topic], apply: async () => undefined };
    const runner = new ProjectionRunner(projection, sqlTransactions(database), bus);
    const publisher = new OutboxPublisher(store, bus, { idleMs: 20 });
    const logger = recordingLogger();
    const { maintenance } = loadPlatformConfig({});
    const scheduler = new MaintenanceScheduler({
      intervalMs: 200,
      logger,
      tasks: platformMaintenanceTasks(maintenance, {
        store,
        projections: { transactions: sqlTransactions(database), names: [projection.name] },
        localBus: database,
      }),
    });
    try {
      await runner.start();
      publisher.start();
      for (const stream of ['a', 'b', 'c']) {
        await store.append(`${topic}-${stream}`, 'no-stream', [{ eventType: 'ThingHappened', data: { n: 1 } }, { eventType: 'ThingHappened', data: { n: 2 } }], { topic });
      }
      await waitUntil(async () => (await store.outboxBacklog()) === 0, { what: 'the outbox published' });
      await runner.catchUp(30_000);
      const applied = () => count('projection_applied_events WHERE projection = $1', [projection.name]);
      const logged = () => count('bus_messages WHERE topic = $1', [topic]);
      expect([await count('outbox'), await applied(), await logged()]).toEqual([6, 6, 6]);

      // Older than each default retention: 7 days for the outbox and the bus, 30 for applied event ids.
      await backdate('outbox', 'published_at', 8);
      await backdate('bus_messages', 'published_at', 8);
      await backdate('projection_applied_events', 'applied_at', 31);
      scheduler.start();
      await waitUntil(async () => scheduler.completedRuns > 0 && (await count('outbox')) === 0 && (await applied()) === 0 && (await logged()) === 0, {
        timeoutMs: 30_000,
        what: 'the scheduled run to purge all three',
      });
      expect(await count('events')).toBeGreaterThanOrEqual(6);
      expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'info', fields: expect.objectContaining({ task: 'bus-log-retention', deleted: 6 }) }));

      await scheduler.stop();
      // Stopped: a run asked for now does nothing.
      expect(await scheduler.runNow()).toEqual({});
    } finally {
      await scheduler.stop();
      await publisher.stop();
      await runner.stop();
    }
  }, 90_000);

  it('logs a failing task by its code and class name, goes on with the others, and never throws', async () => {
    const closed = await openEventStore(database, { producer: 'maintenance-test@1' });
    await closed.close();
    const logger = recordingLogger();
    const tasks = platformMaintenanceTasks(loadPlatformConfig({}).maintenance, { store: closed, localBus: database });
    const scheduler = new MaintenanceScheduler({ intervalMs: 60_000, logger, tasks });
    try {
      const report = await scheduler.runNow();
      expect(report).toEqual({ 'outbox-purge': { failed: 'OUTBOX_PURGE_FAILED' }, 'bus-log-retention': { counts: { deleted: 0, unconsumed: 0 } } });
      const failure = logger.lines.find((line) => line.level === 'warn');
      expect(failure?.fields).toEqual({ task: 'outbox-purge', code: 'OUTBOX_PURGE_FAILED', errorName: 'EventStoreError' });
    } finally {
      await scheduler.stop();
    }
  }, 60_000);
});

describe('the maintenance scheduler', () => {
  it('runs one run at a time, and a stop waits for the task in hand and runs no further task', async () => {
    let release = () => undefined as void;
    let started = 0;
    const slow: MaintenanceTask = {
      name: 'slow',
      failureCode: 'SLOW_FAILED',
      run: () => {
        started += 1;
        return new Promise((resolve) => (release = () => resolve({ done: 1 })));
      },
    };
    const after: MaintenanceTask = { name: 'after', failureCode: 'AFTER_FAILED', run: async () => ({ done: 1 }) };
    const scheduler = new MaintenanceScheduler({ intervalMs: 60_000, logger: recordingLogger(), tasks: [slow, after] });
    const first = scheduler.runNow();
    const joined = scheduler.runNow();
    expect(joined).toBe(first);
    await waitUntil(() => started === 1, { what: 'the slow task to start' });
    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await first).toEqual({ slow: { counts: { done: 1 } } });
    expect(started).toBe(1);
  });
});
