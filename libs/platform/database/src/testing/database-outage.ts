/**
 * A test database on the Postgres server that goes away and comes back, as when its server restarts: it
 * refuses new connections and every backend of it is terminated, then it accepts connections again. Done
 * from an admin connection to the same server: nothing is faked below the database library. A service under
 * test sees what it would in production: new connections refused, open ones ended (SQLSTATE 57P01).
 */
import { Client } from 'pg';

import { testPostgresAdminUrl, type TestDatabase, type TestPostgresDatabase } from './test-databases';

export interface DatabaseOutage {
  /** The name of the database on the server. */
  readonly name: string;
  /** Refuses new connections and ends the open ones; resolves with how many backends were ended. */
  down(): Promise<number>;
  /** Accepts connections again. */
  up(): Promise<void>;
  /** Brings the database back if it is down, and closes the admin connection. */
  dispose(): Promise<void>;
}

/** `database`: a test database on the Postgres server (`createTestDatabase('postgres')` or `createTestPostgresDatabase`). */
export async function databaseOutage(database: TestDatabase | TestPostgresDatabase): Promise<DatabaseOutage> {
  const url = 'url' in database ? database.url : database.config.mode === 'server' ? database.config.url : null;
  if (url === null) throw new Error('A database outage needs a database on the Postgres server.');
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new Client({ connectionString: testPostgresAdminUrl() });
  await admin.connect();
  let isDown = false;
  const up = async () => {
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    isDown = false;
  };
  return {
    name,
    async down() {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      isDown = true;
      // Materialized first: in one WHERE clause, Postgres may call pg_terminate_backend before the filters.
      const terminated = await admin.query<{ pid: number }>(
        `WITH backends AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid())
         SELECT pid FROM backends WHERE pg_terminate_backend(pid)`,
        [name],
      );
      return terminated.rowCount ?? 0;
    },
    up,
    async dispose() {
      if (isDown) await up().catch(() => undefined);
      await admin.end();
    },
  };
}
