/**
 * The little SQL surface platform machinery needs below Prisma (the migration runner, test helpers, and
 * other platform libraries' infrastructure tables): statements with parameters, whole scripts, and
 * transactions, on one connection. Both databases implement it, so that machinery runs the same code on
 * PGlite and on a Postgres server. Business data goes through each library's Prisma client.
 */
export interface SqlExecutor {
  /** One statement with `$1…` parameters (extended protocol); returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** A script of any number of statements, without parameters (simple protocol). */
  exec(script: string): Promise<void>;
}

export interface SqlConnection extends SqlExecutor {
  /** Runs `work` in a transaction on this connection: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (transaction: SqlExecutor) => Promise<T>): Promise<T>;
}
