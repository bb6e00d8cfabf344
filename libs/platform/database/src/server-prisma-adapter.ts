/**
 * The Prisma driver adapter of a server database: `@prisma/adapter-pg` over the handle's pool, with one
 * repair.
 *
 * Prisma 6.19 ends an interactive transaction by sending COMMIT or ROLLBACK through the transaction and
 * only then calling its `commit()` or `rollback()`, which is where adapter-pg gives the connection back to
 * the pool. When the server ended the connection during the transaction (a restart, a failover,
 * `pg_terminate_backend`), that COMMIT or ROLLBACK fails, the hand-back never happens, and the pool has
 * lost a connection for good: after as many database restarts as the pool has connections, every Prisma
 * query waits for a connection nobody will return, and closing the database hangs. Here a COMMIT or
 * ROLLBACK that fails gives the connection back before the error goes on to Prisma; the pool discards a
 * connection that is no longer usable. A transaction hands its connection back once, whoever asks first.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import type { Pool } from 'pg';

type SqlDriverAdapter = Awaited<ReturnType<SqlDriverAdapterFactory['connect']>>;
type Transaction = Awaited<ReturnType<SqlDriverAdapter['startTransaction']>>;

/** The statements by which Prisma ends a transaction on adapters that send them (adapter-pg does). */
const ENDS_TRANSACTION = /^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i;

export function serverPrismaAdapter(pool: Pool): PrismaPg {
  const factory = new PrismaPg(pool);
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => handsBackOnFailedEnd(await startTransaction(isolationLevel));
    return adapter;
  };
  return factory;
}

function handsBackOnFailedEnd(transaction: Transaction): Transaction {
  const executeRaw = transaction.executeRaw.bind(transaction);
  const commit = transaction.commit.bind(transaction);
  const rollback = transaction.rollback.bind(transaction);
  let handedBack: Promise<void> | undefined;
  const once = (handBack: () => Promise<void>) => () => (handedBack ??= handBack());
  transaction.commit = once(commit);
  transaction.rollback = once(rollback);
  transaction.executeRaw = async (query) => {
    try {
      return await executeRaw(query);
    } catch (error) {
      if (ENDS_TRANSACTION.test(query.sql)) await transaction.rollback().catch(() => undefined);
      throw error;
    }
  };
  return transaction;
}
