/**
 * @trustmesh/platform-projections: the projection runner (event + checkpoint in one transaction, copies
 * skipped, gaps and conflicts refused), side-by-side rebuilds with checked activation, status (position
 * and lag), and retention of the runner's own tables.
 */
export {
  ProjectionRunner,
  PROJECTION_DATABASE_UNAVAILABLE,
  PROJECTION_STREAM_GAP,
  PROJECTION_EVENT_CONFLICT,
  PROJECTION_VERSION_OLDER,
  PROJECTION_VERSION_UNFINISHED,
  DEFAULT_GAP_HOLD_MS,
  PROJECTION_APPLY_TIMEOUT,
  DEFAULT_APPLY_TIMEOUT_MS,
  ProjectionError,
  activate,
  purgeProjectionHistory,
  type ActivateOptions,
  type ProjectionRetention,
  activeVersion,
  type ProjectionDefinition,
  type ProjectionContext,
  type ProjectionRunContext,
  type ProjectionTransactions,
  type ProjectionRunnerOptions,
  type ProjectionStatus,
  type ProjectionPosition,
} from './projection-runner';
export { sqlTransactions } from './projection-transactions';
export { prismaTransactions, type PrismaRawClient, type PrismaTransactionalClient } from './prisma-projection-transactions';
export { PROJECTION_MIGRATIONS } from './projection-migrations';
