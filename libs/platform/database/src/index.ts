/**
 * @trustmesh/platform-database: the platform database in either mode (embedded PGlite or a Postgres
 * server), Prisma driver adapters for it, and the migration runner every table-owning library uses.
 * Test helpers live in a separate entry point, `@trustmesh/platform-database/testing`.
 */
export { openDatabase, type Database, type DatabaseConfig, type OpenDatabaseOptions, type PrismaAdapterFactory } from './database';
export {
  DatabaseError,
  MigrationError,
  DATABASE_ERROR_CODES,
  MIGRATION_ERROR_CODES,
  isDatabaseUnavailable,
  type DatabaseErrorCode,
  type MigrationErrorCode,
} from './database.errors';
export {
  applyMigrations,
  migrationStatus,
  prepareSchema,
  deployMigrations,
  loadMigrations,
  migrationChecksum,
  MIGRATION_HISTORY_TABLE,
  DEFAULT_DEPLOY_COMMAND,
  type MigrationSet,
  type MigrationFile,
  type MigrationSetReport,
  type MigrationSetStatus,
  type AppliedMigration,
  type MigrateOptions,
} from './migration-runner';
export { runMigrationsCommand, type MigrationsCommandIo } from './migrations.command';
export { BUNDLED_MIGRATIONS_FOLDER, locateMigrations } from './migration-folders';
export type { SqlConnection, SqlExecutor } from './sql-connection';
