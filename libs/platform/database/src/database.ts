/**
 * Opening the platform database from configuration (ARCHITECTURE.md, "Two ways to run"): embedded PGlite
 * under `TRUSTMESH_DATA_DIR` when no `DATABASE_URL` is set, a Postgres server otherwise. Business code gets a
 * `Database` and never knows which one runs: libraries make their Prisma clients from `prismaAdapter()`
 * (`new PrismaClient({ adapter: database.prismaAdapter() })`), the migration runner uses `withConnection`.
 */
import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import type { PlatformConfig } from '@trustmesh/platform-config';

import { openEmbedded } from './embedded-database';
import { openServer, type ServerOptions } from './server-database';
import type { SqlConnection } from './sql-connection';

export type DatabaseConfig = PlatformConfig['database'];

/** A Prisma driver adapter factory, for `new PrismaClient({ adapter })` (`@prisma/adapter-pg` or `pglite-prisma-adapter`). */
export type PrismaAdapterFactory = SqlDriverAdapterFactory;

export interface Database {
  readonly mode: DatabaseConfig['mode'];
  /** The data directory, or `host:port/database`: safe to log, never holds credentials. */
  readonly location: string;
  /** A driver adapter factory over this handle's connections (PGlite instance or `pg` pool). */
  prismaAdapter(): PrismaAdapterFactory;
  /** Runs `work` on one connection of its own, held for the whole call (session state stays with it). */
  withConnection<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T>;
  /**
   * Releases this handle: ends the `pg` pool, or, for the last handle on an embedded directory, closes
   * PGlite (which flushes it to disk) and gives back the directory lock. Disconnect Prisma clients first.
   * Idempotent.
   */
  close(): Promise<void>;
}

export type OpenDatabaseOptions = ServerOptions;

export async function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions = {}): Promise<Database> {
  if (config.mode === 'embedded') {
    const handle = await openEmbedded(config.dataDir);
    return {
      mode: 'embedded',
      location: handle.location,
      prismaAdapter: handle.prismaAdapter,
      withConnection: handle.withConnection,
      close: handle.close,
    };
  }
  const handle = await openServer(config.url, options);
  return {
    mode: 'server',
    location: handle.location,
    prismaAdapter: handle.prismaAdapter,
    withConnection: handle.withConnection,
    close: handle.close,
  };
}
