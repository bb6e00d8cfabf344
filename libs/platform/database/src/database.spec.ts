// Opening databases for real: embedded PGlite directories (shared within a process, refused to a second
// process) and Postgres servers (reachable or not), plus the test helpers other suites use.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';

import { openDatabase } from './database';
import { DatabaseError } from './database.errors';
import { startOpeningProcess } from './test/embedded-open.harness';
import { createTempDataDir, createTestDatabase, createTestPostgresDatabase, testPostgresAdminUrl, type TestDatabase } from './testing';

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
    expect((await readFile(join(dataDir, 'pglite.lock'), 'utf8')).split('\n')[0]).toBe(String(process.pid));
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

/** Every mode under `dir` that other users could read, write or enter: none is expected. */
async function openModes(dir: string): Promise<string[]> {
  const open: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mode = (await lstat(path)).mode & 0o777;
    if (mode & 0o077) open.push(`${path} ${mode.toString(8)}`);
    if (entry.isDirectory()) open.push(...(await openModes(path)));
  }
  return open;
}

describe('the embedded data directory lock, with real second processes', () => {
  let dataDir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dataDir, remove: cleanup } = await createTempDataDir('lock'));
  });
  afterEach(async () => {
    await cleanup();
  });

  it('lets one process in at a time, and the next once the first closed', async () => {
    const first = startOpeningProcess(dataDir);
    expect((await first.outcome).event).toBe('opened');
    expect((await refusal(openDatabase({ mode: 'embedded', dataDir }))).code).toBe('DATABASE_IN_USE');
    await first.release();

    const database = await openDatabase({ mode: 'embedded', dataDir });
    const second = startOpeningProcess(dataDir);
    try {
      expect(await second.outcome).toEqual({ event: 'refused', code: 'DATABASE_IN_USE' });
    } finally {
      second.kill();
      await database.close();
    }
  }, 120_000);

  it('lets exactly one of several processes starting at once open the directory', async () => {
    const racers = [0, 1, 2].map(() => startOpeningProcess(dataDir));
    try {
      const outcomes = await Promise.all(racers.map((racer) => racer.outcome));
      expect(outcomes.filter(({ event }) => event === 'opened')).toHaveLength(1);
      expect(outcomes.filter(({ event, code }) => event === 'refused' && code === 'DATABASE_IN_USE')).toHaveLength(2);
    } finally {
      await Promise.all(racers.map((racer) => racer.release()));
    }
  }, 180_000);

  it('never takes over a lock that is being written (an empty lock file)', async () => {
    // What another process's lock looks like between creating the file and writing its pid.
    await writeFile(join(dataDir, 'pglite.lock'), '');
    const second = startOpeningProcess(dataDir);
    try {
      expect(await second.outcome).toEqual({ event: 'refused', code: 'DATABASE_IN_USE' });
    } finally {
      second.kill();
    }
    expect(await readFile(join(dataDir, 'pglite.lock'), 'utf8')).toBe('');
  }, 120_000);

  it('leaves a lock it does not own when it closes', async () => {
    const database = await openDatabase({ mode: 'embedded', dataDir });
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      // The lock now names another live process (whatever put it there): closing must not delete it.
      await writeFile(join(dataDir, 'pglite.lock'), `${other.pid}\n`);
      await database.close();
      expect(await readFile(join(dataDir, 'pglite.lock'), 'utf8')).toBe(`${other.pid}\n`);
    } finally {
      other.kill();
    }
  }, 60_000);

  it('shares the open instance through a symlinked path instead of taking the lock over', async () => {
    const { dataDir: elsewhere, remove: removeElsewhere } = await createTempDataDir('lock-link');
    const linked = join(elsewhere, 'data');
    await symlink(dataDir, linked);
    const direct = await openDatabase({ mode: 'embedded', dataDir });
    const viaLink = await openDatabase({ mode: 'embedded', dataDir: linked });
    try {
      const lock = await readFile(join(dataDir, 'pglite.lock'), 'utf8');
      // A temporary table lives in one session: seen through the link only if both are one instance.
      await direct.withConnection((sql) => sql.exec('CREATE TEMP TABLE seen_once (id integer)'));
      await expect(viaLink.withConnection((sql) => sql.query('SELECT count(*) FROM seen_once'))).resolves.toHaveLength(1);
      expect(await readFile(join(dataDir, 'pglite.lock'), 'utf8')).toBe(lock);
    } finally {
      await viaLink.close();
      await direct.close();
      await removeElsewhere();
    }
  }, 60_000);

  it('refuses a lock file that is a symbolic link, and leaves its target alone', async () => {
    const target = join(dataDir, 'elsewhere.txt');
    await writeFile(target, '2147483646\n'); // a dead pid: a followed link would be taken for a stale lock
    await symlink(target, join(dataDir, 'pglite.lock'));
    const error = await refusal(openDatabase({ mode: 'embedded', dataDir }));
    expect(error.code).toBe('DATABASE_OPEN_FAILED');
    expect(error.message).toContain('symbolic link');
    expect((await lstat(join(dataDir, 'pglite.lock'))).isSymbolicLink()).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('2147483646\n');
  }, 60_000);

  it('keeps the data directory and the files PGlite writes private to the user', async () => {
    const fresh = join(dataDir, 'fresh');
    const database = await openDatabase({ mode: 'embedded', dataDir: fresh });
    await database.withConnection((sql) => sql.exec('CREATE TABLE notes (id integer); INSERT INTO notes VALUES (1); CHECKPOINT;'));
    await database.close();
    expect((await stat(fresh)).mode & 0o777).toBe(0o700);
    expect(await openModes(fresh)).toEqual([]);
  }, 60_000);
});

describe('the embedded database\'s memory', () => {
  it('does not keep initdb\'s memory once a new data directory is created', async () => {
    const { dataDir, remove } = await createTempDataDir('initdb-memory');
    const opening = startOpeningProcess(join(dataDir, 'new'));
    try {
      const outcome = await opening.outcome;
      expect(outcome.event).toBe('opened');
      // About 370 MiB once reopened on a fresh worker; the worker that ran initdb held about 500 MiB more for
      // as long as it lived.
      expect(outcome.rssMiB).toBeLessThan(512);
    } finally {
      await opening.release();
      await remove();
    }
  }, 120_000);

  it('sizes Postgres\' buffers for one process, not PGlite\'s defaults', async () => {
    const testDb = await createTestDatabase('pglite', 'embedded-settings');
    try {
      const database = await testDb.open();
      const settings = await database.withConnection((sql) =>
        sql.query<{ name: string; setting: string }>(
          "SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['shared_buffers', 'wal_buffers', 'temp_buffers', 'work_mem', 'maintenance_work_mem']) AS name",
        ),
      );
      expect(Object.fromEntries(settings.map(({ name, setting }) => [name, setting]))).toEqual({
        shared_buffers: '16MB',
        wal_buffers: '1MB',
        temp_buffers: '1MB',
        work_mem: '2MB',
        maintenance_work_mem: '16MB',
      });
    } finally {
      await testDb.dispose();
    }
  }, 60_000);
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
