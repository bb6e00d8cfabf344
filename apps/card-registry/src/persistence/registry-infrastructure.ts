/**
 * Everything the registry runs on, opened by the platform backbone (`@trustmesh/platform-backbone`): the
 * platform database, the event store (topic `registry.cards.v1`), the event bus, the registry's Prisma
 * client, the outbox publisher, the projection runner of the read models, and the platform's maintenance
 * scheduler. What is the registry's own: its migrations, topic, read model, Prisma client type, the
 * event bound that follows the card bound, and the search backfill of an upgraded database.
 */
import { openAppBackbone } from '@trustmesh/platform-backbone';
import type { EventBus, LocalEventBus } from '@trustmesh/platform-bus';
import type { Database, SqlExecutor } from '@trustmesh/platform-database';
import type { EventStore, OutboxPublisher } from '@trustmesh/platform-event-store';
import type { Logger } from '@trustmesh/platform-logging';
import type { ProjectionRunner } from '@trustmesh/platform-projections';
import type { ISocketFactory } from 'kafkajs';

import type { CardRegistryConfig } from '../config/card-registry.config';
import { PrismaClient } from './generated/prisma/client';
import { CARD_REGISTRY_MIGRATIONS } from './card-registry.migrations';
import { REGISTRY_CARDS_TOPIC } from './registry.stream';
import { registryReadModelProjection } from './registry-read-model.projection';
import { backfillSearchDocuments } from './registry-search.backfill';

export interface RegistryInfrastructure {
  readonly database: Database;
  readonly store: EventStore;
  readonly bus: EventBus;
  /** The local adapter behind `bus` (it serves the EventFeed of `registry.cards.v1`); null on Kafka. */
  readonly localBus: LocalEventBus | null;
  readonly prisma: PrismaClient;
  readonly publisher: OutboxPublisher;
  readonly projection: ProjectionRunner<SqlExecutor>;
  /** Stops the loops and releases every connection; idempotent. */
  close(): Promise<void>;
}

export interface RegistryInfrastructureOptions {
  /** Opens every Kafka connection of the bus (tests cut the brokers off with `createBrokerGate`). */
  kafkaSocketFactory?: ISocketFactory;
}

export async function openRegistryInfrastructure(config: CardRegistryConfig, logger: Logger, options: RegistryInfrastructureOptions = {}): Promise<RegistryInfrastructure> {
  const backbone = await openAppBackbone(config, logger, {
    migrations: [CARD_REGISTRY_MIGRATIONS],
    defaultTopic: REGISTRY_CARDS_TOPIC,
    projections: [registryReadModelProjection()],
    openClient: (database) => new PrismaClient({ adapter: database.prismaAdapter() }),
    // A card's exact bytes travel in its CardRevisionPublished event (base64): the event bound follows the card bound.
    storeOptions: { maxEventDataBytes: config.maxEventDataBytes },
    ...(options.kafkaSocketFactory ? { kafkaSocketFactory: options.kafkaSocketFactory } : {}),
  });
  const { database, store, bus, localBus, client, publisher, projections, close } = backbone;
  try {
    // Cards projected before the search columns existed (an upgraded database) become searchable.
    await backfillSearchDocuments(database, { logger });
  } catch (error) {
    await close();
    throw error;
  }
  return { database, store, bus, localBus, prisma: client, publisher, projection: projections[0], close };
}
