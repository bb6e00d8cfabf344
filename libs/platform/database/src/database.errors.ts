/**
 * Errors of opening databases and migrating them: each has a stable code, and a message an operator can act
 * on. Messages name a database by its location (data directory, or host:port/name), never by its URL, which
 * may carry a password.
 */
export const DATABASE_ERROR_CODES = [
  /** The embedded data directory is open in another process (PGlite is single-process). */
  'DATABASE_IN_USE',
  /** The Postgres server refused or did not answer the first connection. */
  'DATABASE_UNREACHABLE',
  /** PGlite could not open or create its data directory. */
  'DATABASE_OPEN_FAILED',
  /** The handle was used after `close()`. */
  'DATABASE_CLOSED',
] as const;
export type DatabaseErrorCode = (typeof DATABASE_ERROR_CODES)[number];

export class DatabaseError extends Error {
  constructor(
    readonly code: DatabaseErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseError';
  }
}

export const MIGRATION_ERROR_CODES = [
  /** A migration set names no library or a library name that is not kebab-case. */
  'MIGRATION_SET_INVALID',
  /** The migrations directory of a set does not exist. */
  'MIGRATIONS_DIRECTORY_MISSING',
  /** A migration folder has no `migration.sql`. */
  'MIGRATION_FILE_MISSING',
  /** An applied migration's file changed since it was applied: migrations are append-only. */
  'MIGRATION_CHECKSUM_MISMATCH',
  /** The database has a migration applied that this build's folder does not have (an older build?). */
  'MIGRATION_NOT_IN_FOLDER',
  /** A migration's SQL failed; its transaction was rolled back, and later migrations were not tried. */
  'MIGRATION_FAILED',
  /** Another migrator held the migration lock for longer than the lock timeout. */
  'MIGRATION_LOCK_TIMEOUT',
  /** A server database lacks migrations; they are applied by the deploy command, not at startup. */
  'MIGRATIONS_PENDING',
] as const;
export type MigrationErrorCode = (typeof MIGRATION_ERROR_CODES)[number];

export class MigrationError extends Error {
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/** A driver error reduced to what an operator needs (SQLSTATE or errno, and the server's message). */
export function describeDriverError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code !== '' ? `${code}: ${error.message}` : error.message;
}
