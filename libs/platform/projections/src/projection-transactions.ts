/**
 * Transactions for projections whose read models are written with SQL on the platform database. The
 * runner writes its checkpoint with the same executor, inside the same transaction.
 */
import type { Database, SqlExecutor } from '@trustmesh/platform-database';

import type { ProjectionTransactions } from './projection-runner';

export function sqlTransactions(database: Database): ProjectionTransactions<SqlExecutor> {
  return {
    run: (work) => database.withConnection((connection) => connection.transaction((tx) => work(tx, tx))),
    read: (work) => database.withConnection((connection) => work(connection)),
  };
}
