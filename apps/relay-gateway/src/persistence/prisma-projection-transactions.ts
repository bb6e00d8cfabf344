/**
 * Projection transactions for read models written through the gateway's Prisma client: the runner's
 * checkpoint statements run through the same interactive transaction as the read model's writes, so both
 * commit together (ARCHITECTURE.md, "Events": consumers are idempotent).
 */
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { ProjectionTransactions } from '@trustmesh/platform-projections';

import type { Prisma, PrismaClient } from './generated/prisma/client';

export type RelayPrismaTx = Prisma.TransactionClient;

function executorOf(client: Prisma.TransactionClient | PrismaClient): SqlExecutor {
  return {
    query: <Row>(sql: string, params: readonly unknown[] = []) => client.$queryRawUnsafe<Row[]>(sql, ...params),
    exec: async (script: string) => {
      await client.$executeRawUnsafe(script);
    },
  };
}

export function prismaTransactions(prisma: PrismaClient, timeoutMs = 15_000): ProjectionTransactions<RelayPrismaTx> {
  return {
    run: (work) => prisma.$transaction((tx) => work(tx, executorOf(tx)), { timeout: timeoutMs, maxWait: timeoutMs }),
    read: (work) => work(executorOf(prisma)),
  };
}
