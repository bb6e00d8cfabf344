/**
 * Opens (and closes, in reverse) everything the analyzer runs on, exactly as the relay gateway does with the
 * platform libraries: the platform database, the event store (topic `shield.cases.v1`), the event bus, the
 * analyzer's Prisma client, the outbox publisher, the projection runner of the read models, and the
 * platform's maintenance scheduler.
 *
 * Schema: in embedded mode every migration set is applied here; on a server they are only verified
 * (`MIGRATIONS_PENDING` until `trustmesh db migrate deploy` ran).
 */
import { createKafkaEventBus, createLocalEventBus, LOCAL_BUS_MIGRATIONS, LocalEventBus, type EventBus } from '@trustmesh/platform-bus';
import { openDatabase, prepareSchema, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { EVENT_STORE_MIGRATIONS, OutboxPublisher, openEventStore, type EventStore } from '@trustmesh/platform-event-store';
import { withContext, type Logger } from '@trustmesh/platform-logging';
import { MaintenanceScheduler, platformMaintenanceTasks } from '@trustmesh/platform-maintenance';
import { PROJECTION_MIGRATIONS, ProjectionRunner, sqlTransactions } from '@trustmesh/platform-projections';
import type { ISocketFactory } from 'kafkajs';

import type { ShieldAnalyzerConfig } from '../config/shield-analyzer.config';
import { PrismaClient } from './generated/prisma/client';
import { SHIELD_ANALYZER_MIGRATIONS } from './shield-analyzer.migrations';
import { SHIELD_CASES_TOPIC } from './shield-case.stream';
import { shieldReadModelProjection } from './shield-read-model.projection';

export interface ShieldInfrastructure {
  readonly database: Database;
  readonly store: EventStore;
  readonly bus: EventBus;
  readonly prisma: PrismaClient;
  readonly publisher: OutboxPublisher;
  readonly projection: ProjectionRunner<SqlExecutor>;
  /** Stops the loops and releases every connection; idempotent. */
  close(): Promise<void>;
}

const KAFKA_MAX_WAIT_MS = 250;
const OUTBOX_LINGER_MS = 5;
const OUTBOX_LEFTOVERS_IDLE_MS = 1_000;

export interface ShieldInfrastructureOptions {
  /** Opens every Kafka connection of the bus (tests cut the brokers off with `createBrokerGate`). */
  kafkaSocketFactory?: ISocketFactory;
}

export async function openShieldInfrastructure(config: ShieldAnalyzerConfig, logger: Logger, options: ShieldInfrastructureOptions = {}): Promise<ShieldInfrastructure> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => logger.log('warn', 'shutdown step failed', { errorName: error instanceof Error ? error.name : 'unknown' }));
    }
  };
  try {
    const database = await openDatabase(config.platform.database);
    cleanups.push(() => database.close());
    logger.log('info', 'database open', { mode: database.mode, location: database.location });

    const localBus = config.platform.bus.adapter === 'local';
    await prepareSchema(database, [EVENT_STORE_MIGRATIONS, ...(localBus ? [LOCAL_BUS_MIGRATIONS] : []), PROJECTION_MIGRATIONS, SHIELD_ANALYZER_MIGRATIONS]);
    const bus: EventBus =
      config.platform.bus.adapter === 'kafka'
        ? createKafkaEventBus(config.platform, {
            logger: withContext(logger, { component: 'platform-bus.kafka' }),
            consumer: { maxWaitTimeMs: KAFKA_MAX_WAIT_MS },
            ...(options.kafkaSocketFactory ? { socketFactory: options.kafkaSocketFactory } : {}),
          })
        : await createLocalEventBus(config.platform, database, { logger: withContext(logger, { component: 'platform-bus.local' }) });
    cleanups.push(() => bus.close());

    // Embedded with the local bus, the bus's log is in the store's own database: an append writes its bus
    // messages with its events (one statement), and the outbox (claim, publish, mark per batch) only drains
    // rows an older version left. Closed before the bus (cleanups run in reverse).
    const publishInTransaction = database.mode === 'embedded' && bus instanceof LocalEventBus ? bus : undefined;
    const store = await openEventStore(database, { producer: config.producer, defaultTopic: SHIELD_CASES_TOPIC, ...(publishInTransaction ? { publishInTransaction } : {}) });
    cleanups.push(() => store.close());

    const prisma = new PrismaClient({ adapter: database.prismaAdapter() });
    cleanups.push(() => prisma.$disconnect());

    const publisher = new OutboxPublisher(store, bus, {
      // With no new outbox rows (publishing in the append), its polling only looks for leftovers.
      idleMs: store.publishesInTransaction ? OUTBOX_LEFTOVERS_IDLE_MS : 100,
      // Consults come in bursts (an agent's turn, a batch of cases): their events reach the bus and the read
      // model together, a few milliseconds later, instead of each paying its own claim, publish and mark.
      lingerMs: OUTBOX_LINGER_MS,
      onError: (code, attempt) => logger.log('warn', 'outbox publish failed', { errorCode: code, attempt }),
    });
    publisher.start();
    cleanups.push(() => publisher.stop());

    const readModel = shieldReadModelProjection();
    const readModelTransactions = sqlTransactions(database);
    const projection = new ProjectionRunner(readModel, readModelTransactions, bus);
    await projection.start();
    cleanups.push(() => projection.stop());

    const maintenance = new MaintenanceScheduler({
      intervalMs: config.platform.maintenance.intervalMs,
      logger: withContext(logger, { component: 'platform-maintenance' }),
      tasks: platformMaintenanceTasks(config.platform.maintenance, {
        store,
        projections: { transactions: readModelTransactions, names: [readModel.name] },
        ...(localBus ? { localBus: database } : {}),
      }),
    });
    maintenance.start();
    cleanups.push(() => maintenance.stop());

    let closing: Promise<void> | undefined;
    return { database, store, bus, prisma, publisher, projection, close: () => (closing ??= closeAll()) };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
