/**
 * Projection transactions for the read models written through the analyzer's Prisma client: the runner's
 * checkpoint statements run in the same interactive transaction as the read model's writes, so both commit
 * together (ARCHITECTURE.md, "Events"). The relay gateway has the same adapter for its own client
 * (apps/relay-gateway/src/persistence/prisma-projection-transactions.ts); it belongs in
 * `@trustmesh/platform-projections`, generic over the client, once both apps use it.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { ProjectionTransactions } from '@trustmesh/platform-projections';

import type { Prisma, PrismaClient } from './generated/prisma/client';

export type ShieldPrismaTx = Prisma.TransactionClient;

function executorOf(client: Prisma.TransactionClient | PrismaClient): SqlExecutor {
  return {
    query: <Row>(sql: string, params: readonly unknown[] = []) => client.$queryRawUnsafe<Row[]>(sql, ...params),
    exec: async (script: string) => {
      await client.$executeRawUnsafe(script);
    },
  };
}

export function shieldPrismaTransactions(prisma: PrismaClient, timeoutMs = 15_000): ProjectionTransactions<ShieldPrismaTx> {
  return {
    run: (work) => prisma.$transaction((tx) => work(tx, executorOf(tx)), { timeout: timeoutMs, maxWait: timeoutMs }),
    read: (work) => work(executorOf(prisma)),
  };
}
