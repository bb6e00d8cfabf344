/**
 * @trustmesh/platform-maintenance: the periodic retention every app runs (outbox, projection history, the
 * local bus's log), on a jittered schedule that never stops the process. See README.md.
 */
export { MaintenanceScheduler, type MaintenanceSchedulerOptions, type MaintenanceTask, type MaintenanceTaskContext, type MaintenanceReport } from './maintenance-scheduler';
export {
  platformMaintenanceTasks,
  outboxPurgeTask,
  projectionHistoryTask,
  localBusRetentionTask,
  BUS_RETENTION_UNCONSUMED_DELETED,
  type MaintainedParts,
} from './platform-maintenance.tasks';
