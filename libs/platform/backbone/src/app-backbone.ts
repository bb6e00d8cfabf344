/**
 * Opens (and closes, in reverse) everything a platform service runs on, the same way for every app: the
 * platform database, its schema, the event store, the event bus (local or Kafka), the app's Prisma client,
 * the outbox publisher, the projection runners of its read models, and the platform's maintenance scheduler.
 * What differs between apps (topic, migrations, read models, event bound, publishing in the append) is an
 * option; the Prisma client is built by the app because its generated type is the app's own.
 *
 * Schema: in embedded mode every migration set is applied here; on a server they are only verified
 * (`MIGRATIONS_PENDING` until `trustmesh db migrate deploy` ran).
 */
import { createKafkaEventBus, createLocalEventBus, LOCAL_BUS_MIGRATIONS, LocalEventBus, tracedEventBus, type EventBus } from '@trustmesh/platform-bus';
import type { PlatformConfig } from '@trustmesh/platform-config';
import { openDatabase, prepareSchema, type Database, type MigrationSet, type SqlExecutor } from '@trustmesh/platform-database';
import { EVENT_STORE_MIGRATIONS, OutboxPublisher, openEventStore, type EventStore } from '@trustmesh/platform-event-store';
import { withContext, type Logger } from '@trustmesh/platform-logging';
import { MaintenanceScheduler, platformMaintenanceTasks } from '@trustmesh/platform-maintenance';
import { PROJECTION_MIGRATIONS, ProjectionRunner, sqlTransactions, type ProjectionDefinition } from '@trustmesh/platform-projections';
import type { ISocketFactory } from 'kafkajs';

import { CleanupStack } from './cleanup-stack';

const KAFKA_MAX_WAIT_MS = 250;
const OUTBOX_IDLE_MS = 100;
// Writes come in bursts (an agent's turn, a CI run, a catalog sync): their events reach the bus and the read
// models together, a few milliseconds later, instead of each paying its own claim, publish and mark.
const OUTBOX_LINGER_MS = 5;

/** The part of an app's configuration the backbone reads. */
export interface AppBackboneConfig {
  readonly platform: PlatformConfig;
  /** Producer of the app's events (`<service>@<version>`). */
  readonly producer: string;
}

/** Something to disconnect on close: the app's generated Prisma client. */
export interface DisconnectableClient {
  $disconnect(): Promise<unknown>;
}

export interface AppBackboneOptions<Client extends DisconnectableClient, Projections extends readonly ProjectionDefinition<SqlExecutor>[] = readonly ProjectionDefinition<SqlExecutor>[]> {
  /** The app's own migration sets, applied (embedded) or verified (server) after the platform's. */
  readonly migrations: readonly MigrationSet[];
  /** Outbox topic of the app's appends. */
  readonly defaultTopic: string;
  /** The app's read models, each run by its own projection runner over SQL transactions, started in order. */
  readonly projections: Projections;
  /** Builds the app's Prisma client on the database (`new PrismaClient({ adapter: database.prismaAdapter() })`). */
  readonly openClient: (database: Database) => Client;
  /** Event store bounds, e.g. a larger `maxEventDataBytes` when events carry documents. */
  readonly storeOptions?: { readonly maxEventDataBytes?: number };
  /**
   * Embedded with the local bus, write an append's bus messages with its events (one statement); the
   * outbox then only drains rows an older version left, polling every `outbox.leftoversIdleMs`.
   */
  readonly publishInTransaction?: boolean;
  readonly outbox?: {
    /** Pause of the outbox publisher when nothing is pending (default 100 ms). */
    readonly idleMs?: number;
    /** That pause when appends publish in their transaction (default: `idleMs`). */
    readonly leftoversIdleMs?: number;
    /** How long a claim waits for more appends to join its batch (default 5 ms). */
    readonly lingerMs?: number;
  };
  /**
   * On the local bus, how long a consumer's partition waits after a wake-up before it reads (default 0):
   * the events of a burst of appends then reach the read models as one run (one read, one projection
   * transaction and checkpoint) instead of a run each, for that much more lag.
   */
  readonly localBusLingerMs?: number;
  /** Opens every Kafka connection of the bus (tests cut the brokers off with `createBrokerGate`). */
  readonly kafkaSocketFactory?: ISocketFactory;
}

/** One projection runner per read model definition, position for position. */
export type ProjectionRunners<Projections extends readonly ProjectionDefinition<SqlExecutor>[]> = { readonly [K in keyof Projections]: ProjectionRunner<SqlExecutor> };

export interface AppBackbone<Client extends DisconnectableClient, Projections extends readonly ProjectionDefinition<SqlExecutor>[] = readonly ProjectionDefinition<SqlExecutor>[]> {
  readonly database: Database;
  readonly store: EventStore;
  readonly bus: EventBus;
  /**
   * The local adapter behind `bus` (TRUSTMESH_BUS=local), for what only it offers: serving a topic to another
   * process and mirroring one from it (`@trustmesh/platform-event-feed`); null on Kafka.
   */
  readonly localBus: LocalEventBus | null;
  readonly client: Client;
  readonly publisher: OutboxPublisher;
  /** One runner per entry of `options.projections`, in the same order. */
  readonly projections: ProjectionRunners<Projections>;
  /** Stops the loops and releases every connection, newest first; idempotent. */
  close(): Promise<void>;
}

export async function openAppBackbone<Client extends DisconnectableClient, const Projections extends readonly ProjectionDefinition<SqlExecutor>[]>(
  config: AppBackboneConfig,
  logger: Logger,
  options: AppBackboneOptions<Client, Projections>,
): Promise<AppBackbone<Client, Projections>> {
  const cleanups = new CleanupStack(logger);
  try {
    const database = await openDatabase(config.platform.database);
    cleanups.push(() => database.close());
    logger.log('info', 'database open', { mode: database.mode, location: database.location });

    const localBus = config.platform.bus.adapter === 'local';
    await prepareSchema(database, [EVENT_STORE_MIGRATIONS, ...(localBus ? [LOCAL_BUS_MIGRATIONS] : []), PROJECTION_MIGRATIONS, ...options.migrations]);
    const adapterBus: EventBus =
      config.platform.bus.adapter === 'kafka'
        ? createKafkaEventBus(config.platform, {
            logger: withContext(logger, { component: 'platform-bus.kafka' }),
            consumer: { maxWaitTimeMs: KAFKA_MAX_WAIT_MS },
            ...(options.kafkaSocketFactory ? { socketFactory: options.kafkaSocketFactory } : {}),
          })
        : await createLocalEventBus(config.platform, database, {
            logger: withContext(logger, { component: 'platform-bus.local' }),
            ...(options.localBusLingerMs === undefined ? {} : { consumer: { wakeUpLingerMs: options.localBusLingerMs } }),
          });
    cleanups.push(() => adapterBus.close());
    const bus = tracedEventBus(adapterBus);

    // Publishing in the append needs the bus's log in the store's own database: embedded, local bus. The
    // store is opened after the bus for that, and so closed before it.
    const publishInTransaction = options.publishInTransaction === true && database.mode === 'embedded' && adapterBus instanceof LocalEventBus ? adapterBus : undefined;
    const store = await openEventStore(database, {
      producer: config.producer,
      defaultTopic: options.defaultTopic,
      ...(options.storeOptions?.maxEventDataBytes !== undefined ? { maxEventDataBytes: options.storeOptions.maxEventDataBytes } : {}),
      ...(publishInTransaction ? { publishInTransaction } : {}),
    });
    cleanups.push(() => store.close());

    const client = options.openClient(database);
    cleanups.push(() => client.$disconnect());

    const idleMs = options.outbox?.idleMs ?? OUTBOX_IDLE_MS;
    const publisher = new OutboxPublisher(store, bus, {
      idleMs: store.publishesInTransaction ? (options.outbox?.leftoversIdleMs ?? idleMs) : idleMs,
      lingerMs: options.outbox?.lingerMs ?? OUTBOX_LINGER_MS,
      onError: (code, attempt) => logger.log('warn', 'outbox publish failed', { errorCode: code, attempt }),
    });
    publisher.start();
    cleanups.push(() => publisher.stop());

    const readModelTransactions = sqlTransactions(database);
    const runners: ProjectionRunner<SqlExecutor>[] = [];
    for (const definition of options.projections) {
      const runner = new ProjectionRunner(definition, readModelTransactions, bus);
      await runner.start();
      cleanups.push(() => runner.stop());
      runners.push(runner);
    }

    const maintenance = new MaintenanceScheduler({
      intervalMs: config.platform.maintenance.intervalMs,
      logger: withContext(logger, { component: 'platform-maintenance' }),
      tasks: platformMaintenanceTasks(config.platform.maintenance, {
        store,
        projections: { transactions: readModelTransactions, names: options.projections.map((definition) => definition.name) },
        ...(localBus ? { localBus: database } : {}),
      }),
    });
    maintenance.start();
    cleanups.push(() => maintenance.stop());

    // One runner was pushed per definition, in order: the array has the definitions' shape.
    const projections = runners as unknown as ProjectionRunners<Projections>;
    const local = adapterBus instanceof LocalEventBus ? adapterBus : null;
    return { database, store, bus, localBus: local, client, publisher, projections, close: () => cleanups.close() };
  } catch (error) {
    await cleanups.close();
    throw error;
  }
}
