/**
 * Builds the local adapter from the validated platform configuration and the app's open `Database`:
 * topic prefix, partitions per new topic (`TRUSTMESH_LOCAL_BUS_PARTITIONS`), tries and backoff.
 *
 * - Schema: the bus's migrations go through the database library's `prepareSchema`: applied at startup on
 *   embedded PGlite; on a Postgres server only verified (`MIGRATIONS_PENDING` until the deploy step ran).
 * - Wake-ups: the database's own `listen` when it offers one; else, on a Postgres server, LISTEN on one
 *   dedicated connection opened from `DATABASE_URL` (closed by `bus.close()`); else (embedded PGlite, one
 *   process) in-process signals. Consumers also poll, so none of them is load-bearing.
 * Anything the configuration does not cover (consumer tuning, size limit, logger) can be overridden.
 */
import type { PlatformConfig } from '@trustmesh/platform-config';
import { prepareSchema, type Database } from '@trustmesh/platform-database';

import { defaultAdapterLogger } from '../bus-log';
import { LOCAL_BUS_MIGRATIONS } from './local-bus.migrations';
import { LocalEventBus, type LocalEventBusOptions } from './local-event-bus';
import { canListen, databaseWakeUps, inProcessWakeUps, postgresWakeUps } from './wake-ups';

export interface LocalEventBusFactoryOptions extends Partial<Omit<LocalEventBusOptions, 'database'>> {
  /** Apply (embedded) or verify (server) the bus's migrations first (default true). */
  prepareSchema?: boolean;
}

export async function createLocalEventBus(
  config: Pick<PlatformConfig, 'bus' | 'database'>,
  database: Database,
  { prepareSchema: prepare = true, ...overrides }: LocalEventBusFactoryOptions = {},
): Promise<LocalEventBus> {
  const { topicPrefix, maxAttempts, retryBackoffMs, localPartitions } = config.bus;
  const logger = overrides.logger ?? defaultAdapterLogger('local');
  if (prepare) await prepareSchema(database, [LOCAL_BUS_MIGRATIONS]);
  const wakeUps =
    overrides.wakeUps ??
    (canListen(database)
      ? databaseWakeUps(database)
      : config.database.mode === 'server'
        ? postgresWakeUps({ url: config.database.url, logger })
        : inProcessWakeUps(database.location));
  return new LocalEventBus({ database, topicPrefix, partitions: localPartitions, maxAttempts, retryBackoffMs, ...overrides, logger, wakeUps });
}
