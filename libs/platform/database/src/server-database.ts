/**
 * Server mode: a `pg` connection pool to a Postgres server, shared by every Prisma client made from the
 * handle (`@prisma/adapter-pg` over the same pool, `server-prisma-adapter.ts`) and by the platform's own
 * SQL (the migration runner). Connections the server ends (a restart, a failover) are dropped from the
 * pool and replaced, whether idle, checked out, or inside a Prisma transaction.
 */
import type { PrismaPg } from '@prisma/adapter-pg';
import { Pool, type PoolClient } from 'pg';

import { DatabaseError, describeDriverError, isDatabaseUnavailable } from './database.errors';
import { serverPrismaAdapter } from './server-prisma-adapter';
import type { SqlConnection } from './sql-connection';

export interface ServerOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** How long to wait for a connection before failing (default 10 s). */
  connectTimeoutMs?: number;
}

export interface ServerHandle {
  readonly location: string;
  readonly pool: Pool;
  prismaAdapter(): PrismaPg;
  withConnection<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** `host:port/database` of a URL: how messages name a server database (never with its credentials). */
export function serverLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${decodeURIComponent(parsed.pathname) || '/'}`;
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

export async function openServer(url: string, options: ServerOptions = {}): Promise<ServerHandle> {
  const location = serverLocation(url);
  const pool = new Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
  });
  // An idle connection that dies (server restart, network) emits 'error' on the pool, which would crash the
  // process without a listener. The pool drops that connection; the next query opens a new one.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new DatabaseError('DATABASE_UNREACHABLE', `Cannot connect to the Postgres server at ${location}: ${describeDriverError(error)}`, {
      cause: error,
    });
  }
  let closed = false;
  return {
    location,
    pool,
    prismaAdapter: () => serverPrismaAdapter(pool),
    withConnection: async (work) => {
      if (closed) throw new DatabaseError('DATABASE_CLOSED', `The database handle for ${location} was closed.`);
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        // Refused, timed out, or the database does not take connections now: the same code as at open.
        throw new DatabaseError('DATABASE_UNREACHABLE', `Cannot get a connection to the Postgres server at ${location}: ${describeDriverError(error)}`, {
          cause: error,
        });
      }
      let broken: Error | undefined;
      let lostConnection = false;
      // The pool listens for errors on idle connections only. A connection the server ends while it is
      // checked out but between queries (a restart, pg_terminate_backend) emits 'error' here, and an
      // 'error' with no listener would crash the process; the next query on it fails instead.
      const lost = (error: Error) => {
        lostConnection = true;
        broken ??= error;
      };
      client.on('error', lost);
      try {
        return await work(pgConnection(client));
      } catch (error) {
        // Session state (an advisory lock, an aborted transaction) must not go back to the pool.
        broken ??= error instanceof Error ? error : new Error(String(error));
        // pg's errors for a dead connection mostly carry no code: say what happened, once, with a code.
        if (lostConnection && !isDatabaseUnavailable(error)) {
          throw new DatabaseError('DATABASE_CONNECTION_LOST', `The connection to the Postgres server at ${location} was lost during the work.`, { cause: error });
        }
        throw error;
      } finally {
        client.removeListener('error', lost);
        client.release(broken);
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

function pgConnection(client: PoolClient): SqlConnection {
  const executor = {
    query: async <Row>(sql: string, params: readonly unknown[] = []) => (await client.query(sql, [...params])).rows as Row[],
    // Without parameters, `pg` uses the simple query protocol, which runs several statements.
    exec: async (script: string) => {
      await client.query(script);
    },
  };
  return {
    ...executor,
    transaction: async (work) => {
      await client.query('BEGIN');
      try {
        const result = await work(executor);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
  };
}
