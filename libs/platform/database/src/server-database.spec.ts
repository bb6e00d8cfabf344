/**
 * A server database whose connections the server ends, as a restart or a failover does: a real Postgres
 * server, and `pg_terminate_backend` from an admin connection. With a pool of one connection, a
 * connection that was not given back, or given back broken, shows at once. Work that fails because the
 * database went away says so with a code (`DATABASE_UNREACHABLE`, `DATABASE_CONNECTION_LOST`) that
 * `isDatabaseUnavailable` recognises, unlike a statement's own error.
 */
import { Client } from 'pg';

import { waitUntil } from '@trustmesh/platform-testing';

import { openDatabase, type Database } from './database';
import { DatabaseError, isDatabaseUnavailable } from './database.errors';
import { createTestPostgresDatabase, testPostgresAdminUrl, type TestPostgresDatabase } from './testing';

const NO_ARGS = { args: [], argTypes: [] };

describe('a server database whose connections the server ends', () => {
  let server: TestPostgresDatabase;
  let admin: Client;
  let database: Database | undefined;

  beforeAll(async () => {
    server = await createTestPostgresDatabase('server-ends');
    admin = new Client({ connectionString: testPostgresAdminUrl() });
    await admin.connect();
  });

  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  afterAll(async () => {
    await admin?.end();
    await server?.drop();
  });

  /** Ends a backend and waits until it is gone; its client hears of it with the next turn of the event loop. */
  async function terminate(pid: number): Promise<void> {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitUntil(async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rows.length === 0, {
      what: `backend ${pid} to end`,
    });
    // The server's goodbye is in the socket now, an event the client does not expose: give it time to read it.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  it('fails the work whose connection ended between its queries, without crashing, and opens a new one', async () => {
    database = await openDatabase({ mode: 'server', url: server.url }, { poolSize: 1, connectTimeoutMs: 2_000 });
    const work = database.withConnection(async (sql) => {
      const [row] = await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await terminate(row!.pid);
      return sql.query('SELECT 1');
    });
    await expect(work).rejects.toThrow();
    expect(await database.withConnection((sql) => sql.query('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
  });

  it('says the database is unavailable, with a code, when the work lost its connection or none could be had; a statement’s own error passes unchanged', async () => {
    database = await openDatabase({ mode: 'server', url: server.url }, { poolSize: 1, connectTimeoutMs: 2_000 });
    const failure = (work: Promise<unknown>) =>
      work.then(
        () => new Error('the work should have failed'),
        (error: unknown) => error,
      );
    const name = decodeURIComponent(new URL(server.url).pathname.slice(1));

    const lost = await failure(
      database.withConnection(async (sql) => {
        await sql.query('BEGIN');
        const [row] = await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await terminate(row!.pid);
        return sql.query('SELECT 1');
      }),
    );
    expect(lost).toBeInstanceOf(DatabaseError);
    expect(lost).toMatchObject({ code: 'DATABASE_CONNECTION_LOST' });
    expect(isDatabaseUnavailable(lost)).toBe(true);

    const wrong = await failure(database.withConnection((sql) => sql.query('SELEC 1')));
    expect(wrong).not.toBeInstanceOf(DatabaseError);
    expect(wrong).toMatchObject({ code: '42601' });
    expect(isDatabaseUnavailable(wrong)).toBe(false);

    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    try {
      const refused = await failure(database.withConnection((sql) => sql.query('SELECT 1')));
      expect(refused).toBeInstanceOf(DatabaseError);
      expect(refused).toMatchObject({ code: 'DATABASE_UNREACHABLE' });
      expect(isDatabaseUnavailable(refused)).toBe(true);
      // Wrapped once more by a caller, it is still recognised through its cause.
      expect(isDatabaseUnavailable(new Error('projection failed', { cause: refused }))).toBe(true);
    } finally {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    }
    expect(await database.withConnection((sql) => sql.query('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
  });

  it('says the database is unavailable when the Prisma adapter cannot open a session because the database takes none; a statement’s 55000 is not', async () => {
    database = await openDatabase({ mode: 'server', url: server.url }, { poolSize: 1, connectTimeoutMs: 2_000 });
    const adapter = await database.prismaAdapter().connect();
    await adapter.executeRaw({ sql: 'CREATE SEQUENCE IF NOT EXISTS unused_in_session', ...NO_ARGS });
    const own = await adapter.queryRaw({ sql: "SELECT currval('unused_in_session')", ...NO_ARGS }).then(
      () => new Error('the statement should have failed'),
      (error: unknown) => error,
    );
    expect(own).toMatchObject({ cause: { code: '55000' } });
    expect(isDatabaseUnavailable(own)).toBe(false);
    const name = decodeURIComponent(new URL(server.url).pathname.slice(1));
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      // The first query may still meet its ended session (57P01); the ones after find no session to open.
      await adapter.queryRaw({ sql: 'SELECT 1', ...NO_ARGS }).catch(() => undefined);
      const refused = await adapter.queryRaw({ sql: 'SELECT 1', ...NO_ARGS }).then(
        () => new Error('the query should have failed'),
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ cause: { code: '55000' } });
      expect(isDatabaseUnavailable(refused)).toBe(true);
    } finally {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    }
    await adapter.dispose();
  });

  it('gives a Prisma transaction’s connection back to the pool when the server ended it mid-transaction', async () => {
    database = await openDatabase({ mode: 'server', url: server.url }, { poolSize: 1, connectTimeoutMs: 2_000 });
    const adapter = await database.prismaAdapter().connect();
    // What Prisma's transaction manager does: start, query, and on failure send ROLLBACK, then hand back.
    const transaction = await adapter.startTransaction();
    const result = await transaction.queryRaw({ sql: 'SELECT pg_backend_pid() AS pid', ...NO_ARGS });
    await terminate(Number(result.rows[0]![0]));
    await expect(transaction.executeRaw({ sql: 'SELECT 1', ...NO_ARGS })).rejects.toThrow();
    await expect(transaction.executeRaw({ sql: 'ROLLBACK', ...NO_ARGS })).rejects.toThrow();

    // The pool's one connection was given back (and discarded): a new one serves the next caller.
    expect(await database.withConnection((sql) => sql.query('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
    // Prisma would not call rollback() after the failed ROLLBACK; if anything does, nothing is handed back twice.
    await transaction.rollback();
    await adapter.dispose();
  });

  it('hands a committed transaction’s connection back once', async () => {
    database = await openDatabase({ mode: 'server', url: server.url }, { poolSize: 1, connectTimeoutMs: 2_000 });
    const adapter = await database.prismaAdapter().connect();
    const transaction = await adapter.startTransaction();
    await transaction.executeRaw({ sql: 'SELECT 1', ...NO_ARGS });
    await transaction.executeRaw({ sql: 'COMMIT', ...NO_ARGS });
    await transaction.commit();
    await transaction.commit();
    expect(await database.withConnection((sql) => sql.query('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
    await adapter.dispose();
  });
});
