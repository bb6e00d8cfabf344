/**
 * Opens (and closes, in reverse) everything the gateway runs on, before Nest builds its modules: the
 * platform database, the event store, the event bus, the gateway's Prisma client, the outbox publisher,
 * the projection runner of the read models, this replica's control event feed, and the platform's
 * maintenance scheduler (retention of the outbox, the projection history and the local bus's log).
 *
 * Schema: in embedded mode every migration set is applied here (event store, local bus, projections,
 * the gateway's own); on a server they are only verified (`MIGRATIONS_PENDING` until
 * `trustmesh db migrate deploy` ran), so a gateway never serves against an older schema.
 */
import type { ISocketFactory } from 'kafkajs';

import { createKafkaEventBus, createLocalEventBus, LOCAL_BUS_MIGRATIONS, tracedEventBus, type EventBus } from '@trustmesh/platform-bus';
import { openDatabase, prepareSchema, type Database } from '@trustmesh/platform-database';
import { withContext } from '@trustmesh/platform-logging';
import { EVENT_STORE_MIGRATIONS, OutboxPublisher, openEventStore, type EventStore } from '@trustmesh/platform-event-store';
import { MaintenanceScheduler, platformMaintenanceTasks } from '@trustmesh/platform-maintenance';
import { PROJECTION_MIGRATIONS, prismaTransactions, ProjectionRunner } from '@trustmesh/platform-projections';

import type { RelayGatewayConfig } from '../config/relay-gateway.config';
import { ControlEventFeed } from '../control/control-event-feed';
import { RELAY_CONTROL_TOPIC } from '../control/control.events';
import type { JsonLogger } from '../logging/json-logger';
import { WORKSPACE_CARDS_PROJECTION } from '../workspace-card/workspace-card.projection';
import { PrismaClient } from './generated/prisma/client';
import { controlReadModelProjection, type RelayPrismaTx } from './control-read-model.projection';
import { RELAY_GATEWAY_MIGRATIONS } from './relay-gateway.migrations';

export interface RelayInfrastructure {
  readonly database: Database;
  readonly store: EventStore;
  readonly bus: EventBus;
  readonly prisma: PrismaClient;
  readonly publisher: OutboxPublisher;
  readonly projection: ProjectionRunner<RelayPrismaTx>;
  readonly feed: ControlEventFeed;
  readonly maintenance: MaintenanceScheduler;
  /** Stops the loops and releases every connection; idempotent. */
  close(): Promise<void>;
}

const KAFKA_MAX_WAIT_MS = 250;

/** DI token of the open `RelayInfrastructure`. */
export const RELAY_INFRASTRUCTURE = Symbol.for('trustmesh.relay-gateway.Infrastructure');

export interface OpenInfrastructureOptions {
  /** Told what the opening waits for next (the startup probe reports it on /readyz). */
  onStep?: (step: 'database' | 'event-bus' | 'consumers') => void;
  /** How the Kafka bus opens its connections (tests put a broker gate here); default kafkajs' own. */
  kafkaSocketFactory?: ISocketFactory;
  /**
   * Abandons the opening (a SIGTERM while the bus cannot join): the step it waits for is given up, what is
   * open is closed, and the opening rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/**
 * `step`, unless `signal` fires first: then the opening moves on to closing what it opened, and a step that
 * finishes after all is undone (`undo`), so nothing it started outlives the abandoned start.
 */
function unlessAborted<T>(step: Promise<T>, signal: AbortSignal | undefined, undo: (value: T) => Promise<unknown>): Promise<T> {
  if (!signal) return step;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      void step.then(undo).catch(() => undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    step.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export async function openRelayInfrastructure(config: RelayGatewayConfig, logger: JsonLogger, options: OpenInfrastructureOptions = {}): Promise<RelayInfrastructure> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => logger.warn('shutdown step failed', { errorName: error instanceof Error ? error.name : 'unknown' }));
    }
  };
  try {
    const { signal } = options;
    options.onStep?.('database');
    const database = await unlessAborted(openDatabase(config.platform.database), signal, (opened) => opened.close());
    cleanups.push(() => database.close());
    logger.info('database open', { mode: database.mode, location: database.location });

    // Every set this process needs, in one check: on a server, MIGRATIONS_PENDING then names all that is
    // pending (the event store and the local bus would otherwise be found missing one start at a time).
    const localBus = config.platform.bus.adapter === 'local';
    await prepareSchema(database, [EVENT_STORE_MIGRATIONS, ...(localBus ? [LOCAL_BUS_MIGRATIONS] : []), PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
    signal?.throwIfAborted();
    const store = await openEventStore(database, { producer: config.producer, defaultTopic: RELAY_CONTROL_TOPIC });
    cleanups.push(() => store.close());

    // Revocations, presence and frames crossing replicas are latency-sensitive: a short fetch wait bounds the
    // delay even where a broker does not answer a long poll as soon as data arrives (librdkafka's mock
    // cluster); a real broker answers at once either way, and idle consumers poll a few times a second.
    options.onStep?.('event-bus');
    const adapterBus: EventBus =
      config.platform.bus.adapter === 'kafka'
        ? createKafkaEventBus(config.platform, {
            // The bus logs through the gateway's logger: one line shape (service, replica) for the whole process.
            logger: withContext(logger.port, { component: 'platform-bus.kafka' }),
            consumer: { maxWaitTimeMs: KAFKA_MAX_WAIT_MS },
            ...(options.kafkaSocketFactory ? { socketFactory: options.kafkaSocketFactory } : {}),
          })
        : await createLocalEventBus(config.platform, database, { logger: withContext(logger.port, { component: 'platform-bus.local' }) });
    cleanups.push(() => adapterBus.close());
    const bus = tracedEventBus(adapterBus);

    const prisma = new PrismaClient({ adapter: database.prismaAdapter() });
    cleanups.push(() => prisma.$disconnect());

    const publisher = new OutboxPublisher(store, bus, {
      idleMs: 100,
      onError: (code, attempt) => logger.warn('outbox publish failed', { errorCode: code, attempt }),
    });
    publisher.start();
    cleanups.push(() => publisher.stop());

    options.onStep?.('consumers');
    const controlReadModel = controlReadModelProjection();
    const projection = new ProjectionRunner(controlReadModel, prismaTransactions(prisma), bus);
    // On Kafka these wait for the consumer groups to join: tens of seconds on a restart, for ever while no
    // broker answers. A stop asked for meanwhile must not wait for them.
    await unlessAborted(projection.start(), signal, () => projection.stop());
    cleanups.push(() => projection.stop());

    const feed = new ControlEventFeed(bus, config.replicaId, logger);
    await unlessAborted(feed.start(), signal, () => feed.stop());
    cleanups.push(() => feed.stop());

    // Stopped first on close (cleanups run in reverse), so no purge statement runs under a closing database.
    const maintenance = new MaintenanceScheduler({
      intervalMs: config.platform.maintenance.intervalMs,
      logger: withContext(logger.port, { component: 'platform-maintenance' }),
      tasks: platformMaintenanceTasks(config.platform.maintenance, {
        store,
        projections: { transactions: prismaTransactions(prisma), names: [controlReadModel.name, WORKSPACE_CARDS_PROJECTION] },
        ...(localBus ? { localBus: database } : {}),
      }),
    });
    maintenance.start();
    cleanups.push(() => maintenance.stop());

    let closing: Promise<void> | undefined;
    return {
      database,
      store,
      bus,
      prisma,
      publisher,
      projection,
      feed,
      maintenance,
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
