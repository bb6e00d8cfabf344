/**
 * The platform's retention tasks, for `MaintenanceScheduler`: each wraps one library's own purge (the
 * logic stays with the table's owner) and reports counts. `platformMaintenanceTasks` builds the set a
 * process needs from its configuration and the parts it runs.
 */
import { applyLocalLogRetention } from '@trustmesh/platform-bus';
import type { PlatformConfig } from '@trustmesh/platform-config';
import type { Database } from '@trustmesh/platform-database';
import type { EventStore } from '@trustmesh/platform-event-store';
import { purgeProjectionHistory, type ProjectionTransactions } from '@trustmesh/platform-projections';

import type { MaintenanceTask } from './maintenance-scheduler';

/** Code of a `warn` line when the bus deleted messages past its hard maximum age that a live group had not consumed. */
export const BUS_RETENTION_UNCONSUMED_DELETED = 'BUS_RETENTION_UNCONSUMED_DELETED';

const ago = (ms: number) => new Date(Date.now() - ms);

/** Deletes outbox rows published more than `retainMs` ago (`EventStore.purgePublishedOutbox`; the events stay). */
export function outboxPurgeTask(store: EventStore, retainMs: number): MaintenanceTask {
  return {
    name: 'outbox-purge',
    failureCode: 'OUTBOX_PURGE_FAILED',
    run: async () => ({ deleted: await store.purgePublishedOutbox(ago(retainMs)) }),
  };
}

/**
 * The projections' own history (`purgeProjectionHistory`): applied event ids older than `retainAppliedMs`,
 * and every row of versions older than the active one, for each named projection.
 */
export function projectionHistoryTask(
  transactions: Pick<ProjectionTransactions<unknown>, 'read'>,
  projections: readonly string[],
  retainAppliedMs: number,
): MaintenanceTask {
  return {
    name: 'projection-history-purge',
    failureCode: 'PROJECTION_HISTORY_PURGE_FAILED',
    run: async ({ signal }) => {
      const counts = { appliedEvents: 0, retiredRows: 0 };
      for (const projection of projections) {
        if (signal.aborted) break;
        const purged = await purgeProjectionHistory(transactions, projection, { appliedEventsBefore: ago(retainAppliedMs) });
        counts.appliedEvents += purged.appliedEvents;
        counts.retiredRows += purged.retiredRows;
      }
      return counts;
    },
  };
}

/** The local bus's log retention (`applyLocalLogRetention`); only for processes on the local bus. */
export function localBusRetentionTask(database: Database, retention: { retainMs: number; maxAgeMs: number }): MaintenanceTask {
  return {
    name: 'bus-log-retention',
    failureCode: 'BUS_RETENTION_FAILED',
    run: async ({ signal, logger }) => {
      const { deleted, unconsumed } = await applyLocalLogRetention(database, { ...retention, signal });
      if (unconsumed > 0) {
        logger.log('warn', 'maintenance: the bus deleted messages past its maximum age that a live group had not consumed (or dead letters)', {
          code: BUS_RETENTION_UNCONSUMED_DELETED,
          unconsumed,
          maxAgeMs: retention.maxAgeMs,
        });
      }
      return { deleted, unconsumed };
    },
  };
}

/** What a process runs that has history to trim; leave out what it does not run. */
export interface MaintainedParts {
  /** The event store whose outbox this process publishes. */
  store?: EventStore;
  /** The projections this process runs, by name, and how to reach their tables. */
  projections?: { transactions: Pick<ProjectionTransactions<unknown>, 'read'>; names: readonly string[] };
  /** The platform database, when the bus is the local one (its log lives there). */
  localBus?: Database;
}

/** The retention tasks for `parts`, with the ages of `config` (`TRUSTMESH_*_RETENTION_MS`, `TRUSTMESH_BUS_MAX_AGE_MS`). */
export function platformMaintenanceTasks(config: PlatformConfig['maintenance'], parts: MaintainedParts): MaintenanceTask[] {
  const tasks: MaintenanceTask[] = [];
  if (parts.store) tasks.push(outboxPurgeTask(parts.store, config.outboxRetentionMs));
  if (parts.projections) tasks.push(projectionHistoryTask(parts.projections.transactions, parts.projections.names, config.projectionHistoryRetentionMs));
  if (parts.localBus) tasks.push(localBusRetentionTask(parts.localBus, { retainMs: config.busRetentionMs, maxAgeMs: config.busMaxAgeMs }));
  return tasks;
}
