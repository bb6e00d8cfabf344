// Opening databases for real: embedded PGlite directories (shared within a process, refused to a second
// process) and Postgres servers (reachable or not), plus the test helpers other suites use.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';

import { openDatabase } from './database';
import { DatabaseError } from './database.errors';
import { createTestDatabase, createTestPostgresDatabase, testPostgresAdminUrl, type TestDatabase } from './testing';

async function refusal(promise: Promise<unknown>): Promise<DatabaseError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DatabaseError) return error;
    throw error;
  }
  throw new Error('expected a DatabaseError');
}

const count = (database: Awaited<ReturnType<typeof openDatabase>>) =>
  database.withConnection(async (connection) => (await connection.query<{ n: number }>('SELECT count(*)::int AS n FROM notes'))[0]?.n);

describe('embedded databases', () => {
  let testDb: TestDatabase;
  let dataDir: string;
  beforeEach(async () => {
    testDb = await createTestDatabase('pglite', 'embedded');
    dataDir = (testDb.config as { dataDir: string }).dataDir;
  });
  afterEach(async () => {
    await testDb.dispose();
  });

  it('share one PGlite per directory within a process, closed by the last handle', async () => {
    const first = await openDatabase({ mode: 'embedded', dataDir });
    const second = await openDatabase({ mode: 'embedded', dataDir: join(dataDir, '.', '') });
    expect(first.mode).toBe('embedded');
    expect(first.prismaAdapter()).toBeInstanceOf(PrismaPGlite);
    await first.withConnection((connection) => connection.exec('CREATE TABLE notes (id integer); INSERT INTO notes VALUES (1);'));
    expect(await count(second)).toBe(1);
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(true);
    await first.close();
    await first.close(); // idempotent
    expect(await count(second)).toBe(1);
    expect((await refusal(first.withConnection(async () => undefined))).code).toBe('DATABASE_CLOSED');
    await second.close();
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
    const reopened = await openDatabase({ mode: 'embedded', dataDir });
    expect(await count(reopened)).toBe(1);
    await reopened.close();
  });

  it('refuse a directory another live process holds, and take over a dead one’s lock', async () => {
    await writeFile(join(dataDir, 'pglite.lock'), '2147483646\n'); // no such process
    const database = await openDatabase({ mode: 'embedded', dataDir });
    expect((await readFile(join(dataDir, 'pglite.lock'), 'utf8')).trim()).toBe(String(process.pid));
    await database.close();

    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dataDir, 'pglite.lock'), `${other.pid}\n`);
      const error = await refusal(openDatabase({ mode: 'embedded', dataDir }));
      expect(error.code).toBe('DATABASE_IN_USE');
      expect(error.message).toContain(`pid ${other.pid}`);
      expect(error.message).toContain('DATABASE_URL');
    } finally {
      other.kill();
    }
  });

  it('run transactions on their single connection without letting other statements in', async () => {
    const database = await testDb.open();
    await database.withConnection((connection) => connection.exec('CREATE TABLE notes (id integer)'));
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const abandoned = database.withConnection((connection) =>
      connection.transaction(async (transaction) => {
        await transaction.query('INSERT INTO notes VALUES ($1)', [1]);
        inside();
        await new Promise((resolve) => setTimeout(resolve, 100));
        throw new Error('abandon');
      }),
    );
    await entered;
    // Issued while the transaction is open: it waits for the rollback, so it never sees the row.
    const seen = count(database);
    await expect(abandoned).rejects.toThrow('abandon');
    expect(await seen).toBe(0);
  });
});

describe('in-memory embedded databases', () => {
  it('are shared by name within the process', async () => {
    const testDb = await createTestDatabase('pglite-memory', 'memory');
    const config = testDb.config as { mode: 'embedded'; dataDir: string };
    expect(config.dataDir).toMatch(/^memory:\/\//);
    const first = await openDatabase(config);
    const second = await openDatabase(config);
    await first.withConnection((connection) => connection.exec('CREATE TABLE notes (id integer); INSERT INTO notes VALUES (1), (2);'));
    expect(await count(second)).toBe(2);
    await Promise.all([first.close(), second.close()]);
    await testDb.dispose();
  });
});

describe('server databases', () => {
  it('open a pool, hand out adapters over it, and close', async () => {
    const server = await createTestPostgresDatabase('server-open');
    try {
      const database = await openDatabase({ mode: 'server', url: server.url }, { poolSize: 2 });
      expect(database.mode).toBe('server');
      expect(database.location).toBe(`127.0.0.1:5432/${server.name}`);
      expect(database.prismaAdapter()).toBeInstanceOf(PrismaPg);
      const rows = await database.withConnection((connection) => connection.query<{ one: number }>('SELECT $1::int AS one', [1]));
      expect(rows).toEqual([{ one: 1 }]);
      await database.close();
      await database.close();
      expect((await refusal(database.withConnection(async () => undefined))).code).toBe('DATABASE_CLOSED');
    } finally {
      await server.drop();
    }
  });

  it('report an unreachable server by location, never by URL', async () => {
    const error = await refusal(openDatabase({ mode: 'server', url: 'postgres://someone:hunter2@127.0.0.1:1/nowhere' }, { connectTimeoutMs: 2000 }));
    expect(error.code).toBe('DATABASE_UNREACHABLE');
    expect(error.message).toContain('127.0.0.1:1/nowhere');
    expect(error.message).not.toContain('hunter2');
  });
});

describe('test databases', () => {
  it.each(['pglite', 'pglite-memory', 'postgres'] as const)('%s: fresh, usable, and gone after dispose', async (kind) => {
    const testDb = await createTestDatabase(kind, 'helpers');
    const database = await testDb.open();
    await database.withConnection((connection) => connection.exec('CREATE TABLE notes (id integer)'));
    expect(await count(database)).toBe(0);
    await testDb.dispose();
    if (testDb.config.mode === 'server') {
      const name = new URL(testDb.config.url).pathname.slice(1);
      const admin = await openDatabase({ mode: 'server', url: testPostgresAdminUrl() });
      const rows = await admin.withConnection((connection) => connection.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]));
      await admin.close();
      expect(rows).toEqual([]);
    } else if (!testDb.config.dataDir.startsWith('memory://')) {
      expect(existsSync(testDb.config.dataDir)).toBe(false);
    }
  });
});
