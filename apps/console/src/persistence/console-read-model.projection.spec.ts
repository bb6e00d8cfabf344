/**
 * The console's read models from a log of account and ownership events, on both databases: what each event
 * leaves in `console_accounts` and `console_workspaces`, and that replaying the whole log (a rebuild, or a
 * redelivery) leaves the same rows.
 */
import type { BusRecord } from '@trustmesh/platform-bus';
import { applyMigrations, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';

import { ACCOUNT_CREATED, ACCOUNT_DELETED, ACCOUNT_PASSWORD_CHANGED } from '../accounts/console-account.decider';
import { CONSOLE_MIGRATIONS } from './console.migrations';
import { consoleReadModelProjection } from './console-read-model.projection';
import { accountStreamId, WORKSPACE_CLAIMED, workspaceStreamId } from './console.streams';

const [FIRST, SECOND, OTHER] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
const WORKSPACE = crypto.randomUUID();

function stream(streamId: string, events: { eventType: string; data: unknown }[]): EventEnvelope[] {
  return events.map((event, index) => createEnvelope(event, { streamId, streamVersion: index + 1, producer: 'console@test' }));
}

const LOG: EventEnvelope[] = [
  ...stream(accountStreamId('alice'), [
    { eventType: ACCOUNT_CREATED, data: { accountId: FIRST, username: 'alice', createdAt: '2026-12-01T10:00:00.000Z' } },
    { eventType: ACCOUNT_PASSWORD_CHANGED, data: { accountId: FIRST, changedAt: '2026-12-02T10:00:00.000Z' } },
    { eventType: ACCOUNT_DELETED, data: { accountId: FIRST, deletedAt: '2026-12-03T10:00:00.000Z' } },
    { eventType: ACCOUNT_CREATED, data: { accountId: SECOND, username: 'alice', createdAt: '2026-12-04T10:00:00.000Z' } },
  ]),
  ...stream(accountStreamId('bob'), [{ eventType: ACCOUNT_CREATED, data: { accountId: OTHER, username: 'bob', createdAt: '2026-12-01T11:00:00.000Z' } }]),
  ...stream(workspaceStreamId(WORKSPACE), [
    { eventType: WORKSPACE_CLAIMED, data: { workspaceId: WORKSPACE, accountId: SECOND, displayName: 'Laptop', endToEndEncrypted: false, createdAt: '2026-12-04T10:05:00.000Z' } },
  ]),
  // A newer version's event type: read by nothing here, failing nothing.
  ...stream(accountStreamId('carol'), [{ eventType: 'ConsoleAccountRenamed', data: { accountId: crypto.randomUUID() } }]),
];

async function readModel(database: Database): Promise<unknown[]> {
  return database.withConnection(async (sql) => [
    await sql.query(
      `SELECT account_id::text, username, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS created_at,
              to_char(password_changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS password_changed_at
         FROM console_accounts ORDER BY username`,
    ),
    await sql.query(`SELECT workspace_id::text, account_id::text, display_name, end_to_end_encrypted FROM console_workspaces ORDER BY workspace_id`),
  ]);
}

describe.each(TEST_DATABASE_KINDS)('the console read model on %s', (kind) => {
  const projection = consoleReadModelProjection();
  let test: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    test = await createTestDatabase(kind, 'console-read-model');
    database = await test.open();
    await applyMigrations(database, [CONSOLE_MIGRATIONS]);
  }, 120_000);

  afterAll(async () => {
    await test?.dispose();
  });

  const apply = async (log: readonly EventEnvelope[]) => {
    for (const envelope of log) await database.withConnection((connection) => connection.transaction((tx: SqlExecutor) => projection.apply(envelope, { tx, record: {} as BusRecord })));
  };

  it('keeps each live account and each workspace’s owner; a replayed log leaves the same rows', async () => {
    await apply(LOG);
    const rows = await readModel(database);
    expect(rows).toEqual([
      [
        { account_id: SECOND, username: 'alice', created_at: '2026-12-04T10:00:00', password_changed_at: '2026-12-04T10:00:00' },
        { account_id: OTHER, username: 'bob', created_at: '2026-12-01T11:00:00', password_changed_at: '2026-12-01T11:00:00' },
      ],
      [{ workspace_id: WORKSPACE, account_id: SECOND, display_name: 'Laptop', end_to_end_encrypted: false }],
    ]);
    await apply(LOG);
    expect(await readModel(database)).toEqual(rows);
  });
});
