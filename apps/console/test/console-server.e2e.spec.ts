/**
 * The console in server mode, as an operator runs it on a Postgres server: `trustmesh db migrate deploy`,
 * the console as its own process on DATABASE_URL, and `trustmesh console account` beside the running console
 * (a server database has no single-process lock). A password changed or an account deleted from the command
 * line ends that account's live sessions at once.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { Client } from 'pg';

import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';

import { ConsoleBrowser, ROOT, startConsoleProcess, type ConsoleChild } from './support/console-world';

function trustmesh(args: string[], databaseUrl: string, stdin = '') {
  const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'trustmesh.js'), ...args], {
    cwd: ROOT,
    input: stdin,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('console on a Postgres server, accounts managed beside it', () => {
  let database: TestPostgresDatabase;
  let consoleApp: ConsoleChild;

  beforeAll(async () => {
    database = await createTestPostgresDatabase('console-server');
    expect(trustmesh(['db', 'migrate', 'deploy'], database.url).code).toBe(0);
    consoleApp = await startConsoleProcess({ DATABASE_URL: database.url, CONSOLE_HTTP_PORT: '0', CONSOLE_OPERATOR_PORT: '0' });
  }, 240_000);

  afterAll(async () => {
    await consoleApp?.child.stop();
    await database?.drop();
  }, 60_000);

  it('signs in an account created while it runs; a password change and a deletion end its sessions', async () => {
    const { httpUrl, publicOrigin } = consoleApp.child.ready;
    expect(trustmesh(['console', 'account', 'create', '--username', 'grace'], database.url, 'grace passphrase one\n').code).toBe(0);
    const browser = new ConsoleBrowser(httpUrl, publicOrigin);
    expect((await browser.signIn('grace', 'grace passphrase one')).status).toBe(200);
    expect((await browser.send('GET', '/api/v1/session')).status).toBe(200);

    expect(trustmesh(['console', 'account', 'set-password', '--username', 'grace'], database.url, 'grace passphrase two\n').code).toBe(0);
    expect((await browser.send('GET', '/api/v1/session')).status).toBe(401);
    expect((await browser.signIn('grace', 'grace passphrase one')).status).toBe(401);
    expect((await browser.signIn('grace', 'grace passphrase two')).status).toBe(200);

    expect(trustmesh(['console', 'account', 'delete', '--username', 'grace'], database.url).code).toBe(0);
    expect((await browser.send('GET', '/api/v1/session')).status).toBe(401);
    expect((await browser.signIn('grace', 'grace passphrase two')).status).toBe(401);

    // On a server the outbox carries events to the bus: the verifiers never got an outbox row, and once the
    // console's publisher drained it, no record of any topic holds a hash (the store does, unpublished).
    const sql = new Client({ connectionString: database.url });
    await sql.connect();
    try {
      await waitUntil(async () => (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL')).rows[0]?.n === 0, { timeoutMs: 30_000 });
      const verifierRows = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox o JOIN events e ON e.position = o.event_position WHERE e.stream_id LIKE 'console-password-%'`);
      expect(verifierRows.rows[0]?.n).toBe(0);
      const stored = await sql.query<{ data: string }>(`SELECT data::text AS data FROM events WHERE stream_id LIKE 'console-password-%'`);
      expect(stored.rows.length).toBe(2);
      expect(stored.rows.every((row) => row.data.includes('scrypt$'))).toBe(true);
      const records = await sql.query<{ topic: string; key: string; value: string }>('SELECT topic, key, value FROM bus_messages');
      // Created, password changed, deleted (at least once: a record published twice carries the same event id).
      const graceEvents = records.rows.filter((row) => row.key === 'console-account-grace').map((row) => JSON.parse(row.value) as { eventId: string; eventType: string });
      expect(new Set(graceEvents.map((event) => event.eventId)).size).toBe(3);
      for (const row of records.rows) expect(row.value).not.toContain('scrypt$');
    } finally {
      await sql.end();
    }
  }, 120_000);
});
