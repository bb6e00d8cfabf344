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
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';

import { openDatabase, type Database, type DatabaseConfig, type OpenDatabaseOptions } from '../database';
import { CLUSTER_DIR, MEMORY_PREFIX, openEmbedded, type EmbeddedHandle } from '../embedded-database';

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

/**
 * A temporary data directory that already holds an initialised cluster, for an app started in embedded mode
 * (`TRUSTMESH_DATA_DIR`) or a `pglite` test database: it opens the directory as on any later start, without
 * an initdb of its own (10–15 s). Suites about a first start on an empty directory use `createTempDataDir`.
 */
export async function createSeededDataDir(label = 'test'): Promise<{ readonly dataDir: string; remove(): Promise<void> }> {
  const template = await seededTemplateDir();
  const dir = await createTempDataDir(label);
  try {
    await cp(template, dir.dataDir, { recursive: true });
  } catch (error) {
    await dir.remove();
    throw error;
  }
  return dir;
}

/**
 * The cached template lives in a directory only this user may write, keyed by PGlite's version (a new
 * PGlite makes a new template). Jest gives every spec file a fresh module registry, so a per-process cache
 * alone made the cluster again for every file.
 */
async function templateCacheDir(): Promise<{ dir: string; version: string }> {
  const manifest = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const { version } = JSON.parse(await readFile(manifest, 'utf8')) as { version: string };
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = join(tmpdir(), `trustmesh-test-${uid}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // In a shared temporary directory: use it only if it is ours and nobody else may write to it.
  const info = await lstat(dir);
  if (!info.isDirectory() || (typeof process.getuid === 'function' && info.uid !== process.getuid()) || (info.mode & 0o022) !== 0) {
    throw new Error(`The PGlite template cache ${dir} is not a private directory of this user; remove it and run the tests again.`);
  }
  return { dir, version: version.replace(/[^0-9a-z.-]/gi, '_') };
}

let seededTemplate: Promise<string> | undefined;

/**
 * A closed data directory seeded from the tarball below, made once per machine: copying it costs a fraction
 * of unpacking the tarball into a PGlite that is started only to be closed again. Made under a temporary
 * name and renamed, so parallel workers that race to make it never copy half a cluster.
 */
function seededTemplateDir(): Promise<string> {
  seededTemplate ??= (async () => {
    const cache = await templateCacheDir();
    const final = join(cache.dir, `pglite-${cache.version}-data`);
    if (existsSync(join(final, CLUSTER_DIR, 'PG_VERSION'))) return final;
    const partial = await mkdtemp(join(cache.dir, 'seeding-'));
    try {
      await (await openEmbedded(partial, { loadDataDir: await pgliteTemplate() })).close();
      await rename(partial, final);
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      // Another worker won the race: its template is as good as ours.
      if (!existsSync(join(final, CLUSTER_DIR, 'PG_VERSION'))) throw error;
    }
    return final;
  })();
  return seededTemplate;
}

let template: Promise<Blob> | undefined;

/**
 * A freshly initialised cluster as a `dumpDataDir()` tarball: initdb in WASM takes 10–15 s on two busy
 * cores, loading this tarball about 2 s. Kept on disk (see `templateCacheDir`), written to a temporary
 * name and renamed.
 */
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const cache = await templateCacheDir();
    const file = join(cache.dir, `pglite-${cache.version}-cluster.tar`);
    const cached = await readFile(file).catch(() => undefined);
    if (cached && cached.length > 0) return new Blob([cached]);
    const pglite = await PGlite.create();
    let dump: Blob;
    try {
      dump = await pglite.dumpDataDir('none');
    } finally {
      await pglite.close();
    }
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
    await rename(partial, file);
    return dump;
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
    const dir = await createSeededDataDir(label);
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
