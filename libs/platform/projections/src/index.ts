/**
 * @trustmesh/platform-projections: the projection runner (event + checkpoint in one transaction,
 * duplicates skipped), side-by-side rebuilds with activation, and status (position and lag).
 */
export {
  ProjectionRunner,
  PROJECTION_DATABASE_UNAVAILABLE,
  activate,
  activeVersion,
  type ProjectionDefinition,
  type ProjectionContext,
  type ProjectionTransactions,
  type ProjectionRunnerOptions,
  type ProjectionStatus,
  type ProjectionPosition,
} from './projection-runner';
export { sqlTransactions } from './projection-transactions';
export { PROJECTION_MIGRATIONS } from './projection-migrations';
