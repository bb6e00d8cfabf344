/**
 * Everything the analyzer runs on, opened by the platform backbone (`@trustmesh/platform-backbone`): the
 * platform database, the event store (topic `shield.cases.v1`), the event bus, the analyzer's Prisma
 * client, the outbox publisher, the projection runner of the read models, and the platform's maintenance
 * scheduler. What is the analyzer's own: its migrations, topic, read models (its cases, and what the card
 * registry publishes on `registry.cards.v1`), Prisma client type, and publishing in the append (embedded, local bus).
 */
import { openAppBackbone } from '@trustmesh/platform-backbone';
import type { EventBus, LocalEventBus } from '@trustmesh/platform-bus';
import type { Database, SqlExecutor } from '@trustmesh/platform-database';
import type { EventStore, OutboxPublisher } from '@trustmesh/platform-event-store';
import type { Logger } from '@trustmesh/platform-logging';
import type { ProjectionRunner } from '@trustmesh/platform-projections';
import type { ISocketFactory } from 'kafkajs';

import type { ShieldAnalyzerConfig } from '../config/shield-analyzer.config';
import { PrismaClient } from './generated/prisma/client';
import { SHIELD_ANALYZER_MIGRATIONS } from './shield-analyzer.migrations';
import { SHIELD_CASES_TOPIC } from './shield-case.stream';
import { shieldReadModelProjection } from './shield-read-model.projection';
import { shieldRegistryProjection } from '../registry/registry-knowledge.projection';

export interface ShieldInfrastructure {
  readonly database: Database;
  readonly store: EventStore;
  readonly bus: EventBus;
  /** The local adapter behind `bus` (where the registry feed's mirror copies `registry.cards.v1`); null on Kafka. */
  readonly localBus: LocalEventBus | null;
  readonly prisma: PrismaClient;
  readonly publisher: OutboxPublisher;
  readonly projection: ProjectionRunner<SqlExecutor>;
  /** The projection of the card registry's `registry.cards.v1` (its own checkpoint). */
  readonly registryProjection: ProjectionRunner<SqlExecutor>;
  /** Stops the loops and releases every connection; idempotent. */
  close(): Promise<void>;
}

const OUTBOX_LEFTOVERS_IDLE_MS = 1_000;
/**
 * On the local bus, the read models take the events of the consults of the last tenth of a second
 * as one run: one read, one projection transaction and one checkpoint for all of them rather than each
 * (the run's fixed statements cost several times one event's own, `bench:shield`). Lists lag that much.
 */
const LOCAL_BUS_LINGER_MS = 100;

export interface ShieldInfrastructureOptions {
  /** Opens every Kafka connection of the bus (tests cut the brokers off with `createBrokerGate`). */
  kafkaSocketFactory?: ISocketFactory;
}

export async function openShieldInfrastructure(config: ShieldAnalyzerConfig, logger: Logger, options: ShieldInfrastructureOptions = {}): Promise<ShieldInfrastructure> {
  const backbone = await openAppBackbone(config, logger, {
    migrations: [SHIELD_ANALYZER_MIGRATIONS],
    defaultTopic: SHIELD_CASES_TOPIC,
    projections: [shieldReadModelProjection(), shieldRegistryProjection()],
    openClient: (database) => new PrismaClient({ adapter: database.prismaAdapter() }),
    // Embedded with the local bus, an append writes its bus messages with its events (one statement), and
    // the outbox only drains rows an older version left: its polling only looks for leftovers.
    publishInTransaction: true,
    outbox: { leftoversIdleMs: OUTBOX_LEFTOVERS_IDLE_MS },
    localBusLingerMs: LOCAL_BUS_LINGER_MS,
    ...(options.kafkaSocketFactory ? { kafkaSocketFactory: options.kafkaSocketFactory } : {}),
  });
  const { database, store, bus, localBus, client, publisher, projections, close } = backbone;
  return { database, store, bus, localBus, prisma: client, publisher, projection: projections[0], registryProjection: projections[1], close };
}
