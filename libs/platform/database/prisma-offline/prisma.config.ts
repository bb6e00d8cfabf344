/**
 * Prisma CLI configuration for authoring migrations offline (used by `prisma-offline.mjs` through
 * `--config`; no library needs one of its own). Prisma 6.19 with `engine: 'js'` runs the WASM schema
 * engine bundled in the CLI, so no schema-engine binary is downloaded, and every database it needs (the
 * migrate-diff "shadow" database that replays the committed migrations) is a throwaway in-memory PGlite.
 *
 * Why the PGlite adapter is wrapped: the schema engine replays each committed `migration.sql` through the
 * adapter's `executeRaw` with no parameters. pglite-prisma-adapter 0.6.1 sends every query as a prepared
 * statement (PGlite's extended protocol), and Postgres refuses a prepared statement holding several
 * commands ("cannot insert multiple commands into a prepared statement", P3006). Here a parameterless
 * `executeRaw` goes through `PGlite.exec` (the simple protocol) instead, the way `pg` does it on a server.
 * `prisma migrate dev --create-only` still fails on this path ("PostgreSQL shadow DB must be provided
 * through an external factory"), which is why `prisma-offline.mjs create` uses `migrate diff` instead.
 */
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { defineConfig } from 'prisma/config';

type AdapterFactory = Awaited<ReturnType<NonNullable<Extract<Parameters<typeof defineConfig>[0], { engine: 'js' }>['adapter']>>>;

interface RawQuery {
  sql: string;
  args: unknown[];
}
interface Queryable {
  executeRaw(query: RawQuery): Promise<number>;
  startTransaction?(...args: unknown[]): Promise<Queryable & { client: { exec(sql: string): Promise<unknown> } }>;
}

/** Makes parameterless statements (whole migration scripts) run through the simple query protocol. */
function runScriptsSimply<T extends Queryable>(queryable: T, exec: (sql: string) => Promise<unknown>): T {
  const executeRaw = queryable.executeRaw.bind(queryable);
  queryable.executeRaw = async (query) => {
    if (query.args.length > 0) return executeRaw(query);
    await exec(query.sql);
    return 0;
  };
  const startTransaction = queryable.startTransaction?.bind(queryable);
  if (startTransaction) {
    queryable.startTransaction = async (...args) => {
      const transaction = await startTransaction(...args);
      return runScriptsSimply(transaction, (sql) => transaction.client.exec(sql));
    };
  }
  return queryable;
}

/** A factory whose connections are fresh in-memory PGlite databases, created only when Prisma asks. */
function throwawayPglite(): AdapterFactory {
  let main: PGlite | undefined;
  const connect = async (pglite: PGlite) => {
    const adapter = (await new PrismaPGlite(pglite).connect()) as unknown as Queryable;
    return runScriptsSimply(adapter, (sql) => pglite.exec(sql));
  };
  const factory = {
    provider: 'postgres' as const,
    adapterName: 'pglite-prisma-adapter',
    connect: () => connect((main ??= new PGlite())),
    connectToShadowDb: () => connect(new PGlite()),
  };
  return factory as unknown as AdapterFactory;
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  adapter: async () => throwawayPglite(),
});
