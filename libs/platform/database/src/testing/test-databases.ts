/**
 * Real databases for tests: a fresh PGlite in a temporary directory (or in memory), or a fresh database on
 * the Postgres server (`TRUSTMESH_TEST_POSTGRES_URL`, default `postgres://postgres@127.0.0.1:5432/postgres`,
 * an account that may create databases). Each is dropped or deleted by `dispose()`. A missing server fails
 * the test; nothing here skips.
 *
 *   const testDb = await createTestDatabase('postgres', 'event-store');
 *   const database = await testDb.open();      // as often as needed; dispose() closes them all
 *   ...
 *   await testDb.dispose();
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';

import { openDatabase, type Database, type DatabaseConfig, type OpenDatabaseOptions } from '../database';
import { MEMORY_PREFIX, openEmbedded, type EmbeddedHandle } from '../embedded-database';

export const TEST_POSTGRES_URL_VARIABLE = 'TRUSTMESH_TEST_POSTGRES_URL';
const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export type TestDatabaseKind = 'pglite' | 'pglite-memory' | 'postgres';

/** The kinds a contract suite runs against: `describe.each(TEST_DATABASE_KINDS)`. */
export const TEST_DATABASE_KINDS = ['pglite', 'postgres'] as const satisfies readonly TestDatabaseKind[];

export interface TestDatabase {
  readonly kind: TestDatabaseKind;
  /** The configuration an app would get; open it as many times as you like. */
  readonly config: DatabaseConfig;
  /** Opens a handle that `dispose()` closes if the test has not. */
  open(options?: OpenDatabaseOptions): Promise<Database>;
  /** Closes every handle opened through `open`, then drops the database or deletes the directory. */
  dispose(): Promise<void>;
}

/** The admin URL of the test Postgres server. */
export function testPostgresAdminUrl(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env[TEST_POSTGRES_URL_VARIABLE] || DEFAULT_ADMIN_URL;
}

function uniqueName(label: string): string {
  const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 24);
  return `tm_test_${slug}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export interface TestPostgresDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates an empty database on the test server; `drop()` removes it, ending any connection still open to it. */
export async function createTestPostgresDatabase(label = 'test'): Promise<TestPostgresDatabase> {
  const adminUrl = testPostgresAdminUrl();
  const name = uniqueName(label);
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(adminUrl: string, work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `The test Postgres server is unreachable (${(error as Error).message}). Start it, or set ${TEST_POSTGRES_URL_VARIABLE} ` +
        'to a server where this account may create databases.',
      { cause: error },
    );
  }
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** A temporary data directory for embedded mode; `remove()` deletes it. */
export async function createTempDataDir(label = 'test'): Promise<{ readonly dataDir: string; remove(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), `trustmesh-${label.replace(/[^a-z0-9-]+/gi, '-')}-`));
  return { dataDir, remove: () => rm(dataDir, { recursive: true, force: true }) };
}

let template: Promise<Blob> | undefined;

/**
 * A freshly initialised cluster, made once per process: initdb in WASM takes 5–10 s on two cores, loading
 * this tarball about 2 s.
 */
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const pglite = await PGlite.create();
    try {
      return await pglite.dumpDataDir('none');
    } finally {
      await pglite.close();
    }
  })();
  return template;
}

export async function createTestDatabase(kind: TestDatabaseKind, label = 'test'): Promise<TestDatabase> {
  let config: DatabaseConfig;
  let cleanUp: () => Promise<void>;
  if (kind === 'postgres') {
    const server = await createTestPostgresDatabase(label);
    config = { mode: 'server', url: server.url };
    cleanUp = server.drop;
  } else if (kind === 'pglite') {
    const dir = await createTempDataDir(label);
    try {
      // Seeded and closed again, so every open() below really opens the directory, as an app would.
      await (await openEmbedded(dir.dataDir, { loadDataDir: await pgliteTemplate() })).close();
    } catch (error) {
      await dir.remove();
      throw error;
    }
    config = { mode: 'embedded', dataDir: dir.dataDir };
    cleanUp = dir.remove;
  } else {
    config = { mode: 'embedded', dataDir: `${MEMORY_PREFIX}${uniqueName(label)}` };
    // An in-memory database lives as long as a handle on it: this one, until dispose().
    const seed: EmbeddedHandle = await openEmbedded(config.dataDir, { loadDataDir: await pgliteTemplate() });
    cleanUp = seed.close;
  }
  const handles = new Set<Database>();
  return {
    kind,
    config,
    open: async (options) => {
      const database = await openDatabase(config, options);
      handles.add(database);
      return database;
    },
    dispose: async () => {
      await Promise.all([...handles].map((database) => database.close()));
      handles.clear();
      await cleanUp();
    },
  };
}
