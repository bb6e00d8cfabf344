/**
 * Projection transactions for read models written through an app's own Prisma client: the runner's
 * checkpoint statements run in the same interactive transaction as the read model's writes, so both
 * commit together (ARCHITECTURE.md, "Events": consumers are idempotent). Generic over the client: each
 * app has its own generated Prisma client and schema, and needs only the raw-SQL surface every one has.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';

import type { ProjectionTransactions } from './projection-runner';

/** What every Prisma client and transaction client offers, whatever its schema. */
export interface PrismaRawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

/** A Prisma client with interactive transactions whose transaction client is `Tx`. */
export interface PrismaTransactionalClient<Tx extends PrismaRawClient> extends PrismaRawClient {
  $transaction<R>(work: (tx: Tx) => Promise<R>, options?: { maxWait?: number; timeout?: number }): Promise<R>;
}

function executorOf(client: PrismaRawClient): SqlExecutor {
  return {
    query: async <Row>(sql: string, params: readonly unknown[] = []) => client.$queryRawUnsafe<Row[]>(sql, ...params),
    exec: async (script: string) => {
      await client.$executeRawUnsafe(script);
    },
  };
}

export function prismaTransactions<Tx extends PrismaRawClient>(prisma: PrismaTransactionalClient<Tx>, timeoutMs = 15_000): ProjectionTransactions<Tx> {
  return {
    run: (work) => prisma.$transaction((tx) => work(tx, executorOf(tx)), { timeout: timeoutMs, maxWait: timeoutMs }),
    read: (work) => work(executorOf(prisma)),
  };
}
