/**
 * Everything the console runs on, opened by the platform backbone (`@trustmesh/platform-backbone`): the
 * database (its own PGlite under `$TRUSTMESH_DATA_DIR/console`, or DATABASE_URL), the event store, the bus,
 * the console's Prisma client, the outbox publisher, the read models' projection runner and the platform's
 * maintenance. Opened the same way by the HTTP app and by `trustmesh console account` (which runs the same
 * projection so its writes reach the read models even while no console runs).
 */
import { openAppBackbone } from '@trustmesh/platform-backbone';
import type { EventBus } from '@trustmesh/platform-bus';
import type { Database, SqlExecutor } from '@trustmesh/platform-database';
import type { EventStore, OutboxPublisher } from '@trustmesh/platform-event-store';
import type { Logger } from '@trustmesh/platform-logging';
import type { ProjectionRunner } from '@trustmesh/platform-projections';

import type { ConsoleConfig } from '../config/console.config';
import { CONSOLE_MIGRATIONS } from './console.migrations';
import { consoleReadModelProjection } from './console-read-model.projection';
import { CONSOLE_ACCOUNTS_TOPIC } from './console.streams';
import { PrismaClient } from './generated/prisma/client';

export interface ConsoleInfrastructure {
  readonly database: Database;
  readonly store: EventStore;
  readonly bus: EventBus;
  readonly prisma: PrismaClient;
  readonly publisher: OutboxPublisher;
  readonly projection: ProjectionRunner<SqlExecutor>;
  close(): Promise<void>;
}

export async function openConsoleInfrastructure(config: Pick<ConsoleConfig, 'platform' | 'producer'>, logger: Logger): Promise<ConsoleInfrastructure> {
  const backbone = await openAppBackbone(config, logger, {
    migrations: [CONSOLE_MIGRATIONS],
    defaultTopic: CONSOLE_ACCOUNTS_TOPIC,
    projections: [consoleReadModelProjection()],
    openClient: (database) => new PrismaClient({ adapter: database.prismaAdapter() }),
    publishInTransaction: true,
  });
  const { database, store, bus, client, publisher, projections, close } = backbone;
  return { database, store, bus, prisma: client, publisher, projection: projections[0], close };
}
