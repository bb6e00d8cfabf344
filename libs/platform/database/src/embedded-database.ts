/**
 * Embedded mode: PGlite (Postgres compiled to WASM) in this process, with its cluster under the data
 * directory. Postgres in one process means two rules:
 * - one PGlite instance per directory per process: every `openDatabase` of the same directory shares it
 *   (reference-counted; the last `close()` closes it), because two instances on one directory corrupt it;
 * - one process per directory: `<dataDir>/pglite.lock` names the owner, and a second process is
 *   refused with `DATABASE_IN_USE` (a lock left by a dead process is taken over; `data-dir-lock.ts`).
 * Instances are keyed by the directory's real path, so a symlinked path to an open directory shares its
 * instance instead of opening a second one. The directory is private to the user (0700, files 0600).
 *
 * Layout: `<dataDir>/pglite/` is the Postgres cluster, `<dataDir>/pglite.lock` the lock. A `dataDir` of
 * `memory://<name>` keeps the database in memory (tests); it is shared by name within the process.
 *
 * PGlite runs on a worker thread of its own (`PgliteThread`), so Postgres' work never blocks this process's
 * event loop.
 */
import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import type { PGlite } from '@electric-sql/pglite';
import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import { PrismaPGlite } from 'pglite-prisma-adapter';

import { lockDataDir, privateDirectory, privatiseTree } from './data-dir-lock';
import { DatabaseError, describeDriverError } from './database.errors';
import { PgliteThread, type ThreadTransaction } from './pglite-thread/pglite-thread';
import type { SqlConnection, SqlExecutor } from './sql-connection';

interface SharedPglite {
  readonly pglite: PgliteThread;
  handles: number;
  readonly unlock: () => Promise<void>;
}

const opened = new Map<string, Promise<SharedPglite>>();
const closing = new Map<string, Promise<void>>();

export const MEMORY_PREFIX = 'memory://';
/** The Postgres cluster's folder inside the data directory. */
export const CLUSTER_DIR = 'pglite';
/**
 * Postgres' memory in embedded mode, sized for one process's own data rather than PGlite's defaults (a
 * 160 MB buffer pool, 4 MB of WAL buffers, ...), which a process paid for in resident memory as its tables
 * were touched. A page missing from the smaller pool is read from the kernel's page cache, not the disk.
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  wal_buffers: '1MB',
  temp_buffers: '1MB',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
};

export interface EmbeddedHandle {
  readonly location: string;
  readonly pglite: PgliteThread;
  prismaAdapter(): SqlDriverAdapterFactory;
  withConnection<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  /** A `dumpDataDir()` tarball to start a new cluster from instead of running initdb (test helpers). */
  loadDataDir?: Blob;
}

/** Opens (or joins) the PGlite database of `dataDir`. */
export async function openEmbedded(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedHandle> {
  const key = dataDir.startsWith(MEMORY_PREFIX) ? dataDir : await realDataDir(dataDir);
  let entry = opened.get(key);
  if (!entry) {
    entry = start(key, options);
    opened.set(key, entry);
    entry.catch(() => opened.delete(key));
  }
  const shared = await entry;
  shared.handles += 1;
  let closed = false;
  const connection = pgliteConnection(shared.pglite);
  return {
    location: key,
    pglite: shared.pglite,
    // pglite-prisma-adapter 0.6.1 is typed against @prisma/driver-adapter-utils 6.10 (its own copy), whose
    // query argument types differ from 6.19's; at run time it ignores them and works with the 6.19 client
    // (the event store's contract suite runs on it), so only the type needs bridging. It uses PGlite's
    // `query`, `exec` and `transaction`, which the thread offers with PGlite's behaviour.
    prismaAdapter: () => new PrismaPGlite(shared.pglite as unknown as PGlite) as unknown as SqlDriverAdapterFactory,
    withConnection: async (work) => {
      if (closed) throw new DatabaseError('DATABASE_CLOSED', `The embedded database at ${key} was closed.`);
      return work(connection);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      shared.handles -= 1;
      if (shared.handles > 0) return;
      opened.delete(key);
      const done = shared.pglite.close().finally(shared.unlock);
      closing.set(key, done);
      try {
        await done;
      } finally {
        closing.delete(key);
      }
    },
  };
}

async function start(key: string, options: EmbeddedOptions): Promise<SharedPglite> {
  // A directory whose last handle is still closing is reopened only once that close is done.
  await closing.get(key)?.catch(() => undefined);
  if (key.startsWith(MEMORY_PREFIX)) {
    return { pglite: await createPglite({ loadDataDir: options.loadDataDir }, key), handles: 0, unlock: async () => undefined };
  }
  const unlock = await lockDataDir(key);
  try {
    const pglite = await createPglite({ dataDir: join(key, CLUSTER_DIR), loadDataDir: options.loadDataDir }, key);
    // PGlite creates its files with the process's umask (often 0644, 0666 under umask 0).
    await privatiseTree(join(key, CLUSTER_DIR)).catch(() => undefined);
    return { pglite, handles: 0, unlock };
  } catch (error) {
    await unlock();
    throw error;
  }
}

/** Creates the data directory (0700) if missing and returns its real path (symlinks resolved). */
async function realDataDir(dataDir: string): Promise<string> {
  const path = resolve(dataDir);
  try {
    await privateDirectory(path);
    return await realpath(path);
  } catch (error) {
    throw new DatabaseError('DATABASE_OPEN_FAILED', `Cannot create the data directory ${path}: ${describeDriverError(error)}`, { cause: error });
  }
}

async function createPglite(options: { dataDir?: string; loadDataDir?: Blob | undefined }, location: string): Promise<PgliteThread> {
  try {
    return await PgliteThread.start(
      {
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
        settings: EMBEDDED_SETTINGS,
      },
      location,
    );
  } catch (error) {
    throw new DatabaseError('DATABASE_OPEN_FAILED', `PGlite could not open the database at ${location}: ${describeDriverError(error)}`, {
      cause: error,
    });
  }
}

function pgliteExecutor(target: PgliteThread | ThreadTransaction): SqlExecutor {
  return {
    query: async <Row>(sql: string, params: readonly unknown[] = []) => (await target.query<Row>(sql, [...params])).rows,
    exec: async (script: string) => {
      await target.exec(script);
    },
  };
}

/**
 * PGlite is one connection. Its `transaction` holds PGlite's own lock until it ends, so statements from
 * other callers wait instead of slipping into our transaction.
 */
function pgliteConnection(pglite: PgliteThread): SqlConnection {
  return {
    ...pgliteExecutor(pglite),
    transaction: (work) => pglite.transaction((transaction) => work(pgliteExecutor(transaction))),
  };
}
