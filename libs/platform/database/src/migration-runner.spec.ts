// The migration runner against real databases: PGlite in a temporary directory and a fresh database on the
// Postgres server, with the same expectations for both.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openDatabase, type Database } from './database';
import { MigrationError } from './database.errors';
import { applyMigrations, deployMigrations, migrationStatus, prepareSchema, MIGRATION_HISTORY_TABLE, type MigrationSet } from './migration-runner';
import { runMigrationsCommand } from './migrations.command';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from './testing';

// Each test migrates its own library and tables, so one database per kind serves the whole suite.
let sequence = 0;
function fixture() {
  sequence += 1;
  const table = `widgets_${sequence}`;
  return {
    library: `widgets-${sequence}`,
    table,
    init: `CREATE TABLE ${table} (id integer PRIMARY KEY, name text NOT NULL);\nCREATE INDEX ${table}_name ON ${table} (name);\n`,
    addColour: `ALTER TABLE ${table} ADD COLUMN colour text;\n`,
  };
}

async function migrationsFolder(files: Record<string, string>): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'trustmesh-migrations-'));
  for (const [name, sql] of Object.entries(files)) {
    await mkdir(join(directory, name));
    await writeFile(join(directory, name, 'migration.sql'), sql);
  }
  return directory;
}

async function history(database: Database, library: string): Promise<string[]> {
  const rows = await database.withConnection((connection) =>
    connection.query<{ migration: string }>(`SELECT migration FROM ${MIGRATION_HISTORY_TABLE} WHERE library = $1 ORDER BY migration`, [library]),
  );
  return rows.map((row) => row.migration);
}

async function tables(database: Database): Promise<string[]> {
  const rows = await database.withConnection((connection) =>
    connection.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`),
  );
  return rows.map((row) => row.name);
}

async function refusal(promise: Promise<unknown>): Promise<MigrationError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MigrationError) return error;
    throw error;
  }
  throw new Error('expected a MigrationError');
}

describe.each(TEST_DATABASE_KINDS)('migration runner on %s', (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  const folders: string[] = [];
  const folder = async (files: Record<string, string>) => {
    const directory = await migrationsFolder(files);
    folders.push(directory);
    return directory;
  };

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'migrations');
    database = await testDb.open();
  });
  afterAll(async () => {
    await testDb.dispose();
    await Promise.all(folders.map((directory) => rm(directory, { recursive: true, force: true })));
  });

  it('migrates a fresh database, then finds nothing to do', async () => {
    const { library, table, init, addColour } = fixture();
    expect(await tables(database)).toEqual([]);
    const set: MigrationSet = { library, directory: await folder({ '20250101000000_init': init, '20250102000000_colour': addColour }) };
    const first = await applyMigrations(database, [set]);
    expect(first).toEqual([
      {
        library,
        alreadyApplied: 0,
        applied: [
          { name: '20250101000000_init', durationMs: expect.any(Number) },
          { name: '20250102000000_colour', durationMs: expect.any(Number) },
        ],
      },
    ]);
    expect(await tables(database)).toEqual([MIGRATION_HISTORY_TABLE, table]);
    expect(await applyMigrations(database, [set])).toEqual([{ library, alreadyApplied: 2, applied: [] }]);
    expect(await history(database, library)).toEqual(['20250101000000_init', '20250102000000_colour']);
    expect(await migrationStatus(database, [set])).toEqual([{ library, applied: ['20250101000000_init', '20250102000000_colour'], pending: [] }]);
  });

  it('keeps each library in its own history rows', async () => {
    const widgets = fixture();
    const gadgets = fixture();
    const widgetSet: MigrationSet = { library: widgets.library, directory: await folder({ '20250101000000_init': widgets.init }) };
    const gadgetSet: MigrationSet = { library: gadgets.library, directory: await folder({ '20250101000000_init': gadgets.init }) };
    await applyMigrations(database, [widgetSet]);
    const [report] = await applyMigrations(database, [gadgetSet, widgetSet]);
    expect(report).toEqual({ library: gadgets.library, alreadyApplied: 0, applied: [{ name: '20250101000000_init', durationMs: expect.any(Number) }] });
    expect(await history(database, widgets.library)).toEqual(['20250101000000_init']);
    expect(await history(database, gadgets.library)).toEqual(['20250101000000_init']);
  });

  it('applies only what a later build adds', async () => {
    const { library, init, addColour } = fixture();
    const directory = await folder({ '20250101000000_init': init });
    await applyMigrations(database, [{ library, directory }]);
    await mkdir(join(directory, '20250102000000_colour'));
    await writeFile(join(directory, '20250102000000_colour', 'migration.sql'), addColour);
    const [report] = await applyMigrations(database, [{ library, directory }]);
    expect(report?.applied.map((migration) => migration.name)).toEqual(['20250102000000_colour']);
  });

  it('refuses an applied migration whose file changed, before applying anything', async () => {
    const { library, init, addColour } = fixture();
    const directory = await folder({ '20250101000000_init': init });
    await applyMigrations(database, [{ library, directory }]);
    await writeFile(join(directory, '20250101000000_init', 'migration.sql'), init.replace('name text', 'label text'));
    await mkdir(join(directory, '20250102000000_colour'));
    await writeFile(join(directory, '20250102000000_colour', 'migration.sql'), addColour);
    const error = await refusal(applyMigrations(database, [{ library, directory }]));
    expect(error.code).toBe('MIGRATION_CHECKSUM_MISMATCH');
    expect(error.message).toContain(`${library}/20250101000000_init`);
    expect(await history(database, library)).toEqual(['20250101000000_init']);
    expect((await refusal(migrationStatus(database, [{ library, directory }]))).code).toBe('MIGRATION_CHECKSUM_MISMATCH');
  });

  it('reads CRLF line endings as the same migration', async () => {
    const { library, init } = fixture();
    const directory = await folder({ '20250101000000_init': init });
    await applyMigrations(database, [{ library, directory }]);
    await writeFile(join(directory, '20250101000000_init', 'migration.sql'), init.replace(/\n/g, '\r\n'));
    expect(await applyMigrations(database, [{ library, directory }])).toEqual([{ library, alreadyApplied: 1, applied: [] }]);
  });

  it('refuses a database that has migrations this build does not know', async () => {
    const { library, init, addColour } = fixture();
    const newer = await folder({ '20250101000000_init': init, '20250102000000_colour': addColour });
    await applyMigrations(database, [{ library, directory: newer }]);
    const older = await folder({ '20250101000000_init': init });
    expect((await refusal(applyMigrations(database, [{ library, directory: older }]))).code).toBe('MIGRATION_NOT_IN_FOLDER');
  });

  it('rolls back a failing migration whole and stops there', async () => {
    const { library, table, init } = fixture();
    const directory = await folder({
      '20250101000000_init': init,
      '20250102000000_broken': `CREATE TABLE ${table}_half (id integer);\nALTER TABLE no_such_table ADD COLUMN x integer;\n`,
      '20250103000000_later': `CREATE TABLE ${table}_later (id integer);`,
    });
    const error = await refusal(applyMigrations(database, [{ library, directory }]));
    expect(error.code).toBe('MIGRATION_FAILED');
    expect(error.message).toContain(`${library}/20250102000000_broken`);
    expect(error.message).toContain('42P01'); // undefined_table: the operator sees the server's reason
    expect((await tables(database)).filter((name) => name.startsWith(table))).toEqual([table]);
    expect(await history(database, library)).toEqual(['20250101000000_init']);
  });

  it('names what is wrong with a migrations folder', async () => {
    const { library, init } = fixture();
    expect((await refusal(applyMigrations(database, [{ library, directory: '/no/such/dir' }]))).code).toBe('MIGRATIONS_DIRECTORY_MISSING');
    const directory = await folder({ '20250101000000_init': init });
    await mkdir(join(directory, '20250102000000_empty'));
    expect((await refusal(applyMigrations(database, [{ library, directory }]))).code).toBe('MIGRATION_FILE_MISSING');
    expect((await refusal(applyMigrations(database, [{ library: 'Widgets!', directory }]))).code).toBe('MIGRATION_SET_INVALID');
  });

  it('at startup: applies in embedded mode, only verifies on a server', async () => {
    const { library, table, init } = fixture();
    const set: MigrationSet = { library, directory: await folder({ '20250101000000_init': init }) };
    if (database.mode === 'embedded') {
      await prepareSchema(database, [set]);
      expect(await history(database, library)).toEqual(['20250101000000_init']);
      return;
    }
    const error = await refusal(prepareSchema(database, [set]));
    expect(error.code).toBe('MIGRATIONS_PENDING');
    expect(error.message).toContain(`${library}/20250101000000_init`);
    expect(await tables(database)).not.toContain(table);
    await deployMigrations(testDb.config, [set]);
    await expect(prepareSchema(database, [set])).resolves.toBeUndefined();
  });

  it('at startup on a server: names every pending migration of every set and the command that applies them all', async () => {
    if (database.mode === 'embedded') return;
    const first = fixture();
    const second = fixture();
    const sets: MigrationSet[] = [
      { library: first.library, directory: await folder({ '20250101000000_init': first.init, '20250102000000_colour': first.addColour }) },
      { library: second.library, directory: await folder({ '20250101000000_init': second.init, '20250102000000_colour': second.addColour, '20250103000000_more': `ALTER TABLE ${second.table} ADD COLUMN size integer;\n` }) },
    ];
    // One of the five is deployed already: the other four, in both sets, are named.
    await deployMigrations(testDb.config, [{ library: first.library, directory: await folder({ '20250101000000_init': first.init }) }]);
    const error = await refusal(prepareSchema(database, sets));
    expect(error.code).toBe('MIGRATIONS_PENDING');
    expect(error.message).toContain('4 pending migration(s)');
    for (const name of [`${first.library}/20250102000000_colour`, `${second.library}/20250101000000_init`, `${second.library}/20250102000000_colour`, `${second.library}/20250103000000_more`]) {
      expect(error.message).toContain(name);
    }
    expect(error.message).not.toContain(`${first.library}/20250101000000_init`);
    expect(error.message).toContain('npx trustmesh db migrate deploy');
    expect(error.message).not.toMatch(/nx run [a-z-]+:migrate-deploy/);
    // An app may name its own deploy command.
    expect((await refusal(prepareSchema(database, sets, { deployCommand: 'my-deploy --all' }))).message).toContain('my-deploy --all');
  });

  it('has a deploy command that reads the database from the environment', async () => {
    const { library, init } = fixture();
    const directory = await folder({ '20250101000000_init': init });
    const env = testDb.config.mode === 'server' ? { DATABASE_URL: testDb.config.url } : { TRUSTMESH_DATA_DIR: testDb.config.dataDir };
    const out: string[] = [];
    const io = { stdout: (text: string) => out.push(text), stderr: (text: string) => out.push(text) };
    // Embedded, the command joins this process's open instance of the directory.
    expect(await runMigrationsCommand(['status', `${library}=${directory}`], env, io)).toBe(1);
    expect(await runMigrationsCommand(['deploy', `${library}=${directory}`], env, io)).toBe(0);
    expect(await runMigrationsCommand(['status', `${library}=${directory}`], env, io)).toBe(0);
    expect(out.join('')).toContain(`pending  ${library}/20250101000000_init\n`);
    expect(out.join('')).toMatch(new RegExp(`applied ${library}/20250101000000_init \\(\\d+ ms\\)\\n`));
    expect(out.join('')).toContain(`applied  ${library}/20250101000000_init\n`);
    expect(await runMigrationsCommand(['deploy', library], env, io)).toBe(2);
    expect(await runMigrationsCommand(['deploy', `${library}=${directory}`], { DATABASE_URL: 'mysql://x' }, io)).toBe(2);
  });
});

describe('migration runner with concurrent migrators on a Postgres server', () => {
  let testDb: TestDatabase;
  let directory: string;
  const { library, init, addColour } = fixture();

  beforeAll(async () => {
    testDb = await createTestDatabase('postgres', 'migrators');
    directory = await migrationsFolder({
      '20250101000000_init': init,
      // Slow enough that the migrators overlap.
      '20250102000000_slow': `SELECT pg_sleep(0.3);\n${addColour}`,
      '20250103000000_more': 'CREATE TABLE more_widgets (id integer);',
    });
  });
  afterAll(async () => {
    await testDb.dispose();
    await rm(directory, { recursive: true, force: true });
  });

  it('apply each migration once: one migrator does the work, the others wait and find it done', async () => {
    // Separate handles: separate pools, separate sessions, as separate replicas would have.
    const migrators = await Promise.all(Array.from({ length: 4 }, () => testDb.open({ poolSize: 2 })));
    const reports = await Promise.all(migrators.map((database) => applyMigrations(database, [{ library, directory }])));
    const appliedCounts = reports.map(([report]) => report?.applied.length).sort();
    expect(appliedCounts).toEqual([0, 0, 0, 3]);
    const [database] = migrators;
    const rows = await database!.withConnection((connection) =>
      connection.query<{ migration: string }>(`SELECT migration FROM ${MIGRATION_HISTORY_TABLE} ORDER BY migration`),
    );
    expect(rows.map((row) => row.migration)).toEqual(['20250101000000_init', '20250102000000_slow', '20250103000000_more']);
  });

  it('gives up with MIGRATION_LOCK_TIMEOUT while another session holds the lock', async () => {
    const holder = await openDatabase(testDb.config);
    const waiter = await testDb.open();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = holder.withConnection(async (connection) => {
      await connection.query("SELECT pg_advisory_lock(x'746d2d6d69677200'::bigint)");
      await held;
      await connection.query("SELECT pg_advisory_unlock(x'746d2d6d69677200'::bigint)");
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const error = await refusal(applyMigrations(waiter, [{ library, directory }], { lockTimeoutMs: 300 }));
      expect(error.code).toBe('MIGRATION_LOCK_TIMEOUT');
    } finally {
      release();
      await holding;
      await holder.close();
    }
  });
});

describe('migration runner with concurrent migrators on one embedded database', () => {
  let testDb: TestDatabase;
  let directory: string;
  const { library, init, addColour } = fixture();

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite', 'migrators');
    directory = await migrationsFolder({
      '20250101000000_init': init,
      '20250102000000_colour': addColour,
      '20250103000000_more': 'CREATE TABLE more_widgets (id integer);',
    });
  });
  afterAll(async () => {
    await testDb.dispose();
    await rm(directory, { recursive: true, force: true });
  });

  it('apply each migration once although every handle shares PGlite\'s one session (where an advisory lock is re-entrant)', async () => {
    const migrators = await Promise.all(Array.from({ length: 3 }, () => testDb.open()));
    const reports = await Promise.all(migrators.map((database) => applyMigrations(database, [{ library, directory }])));
    expect(reports.map(([report]) => report?.applied.length).sort()).toEqual([0, 0, 3]);
    await Promise.all(migrators.map((database) => database.close()));
  });
});
