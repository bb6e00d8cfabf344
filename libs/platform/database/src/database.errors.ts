/**
 * Errors of opening databases and migrating them: each has a stable code, and a message an operator can act
 * on. Messages name a database by its location (data directory, or host:port/name), never by its URL, which
 * may carry a password.
 */
export const DATABASE_ERROR_CODES = [
  /** The embedded data directory is open in another process (PGlite is single-process). */
  'DATABASE_IN_USE',
  /** The Postgres server refused or did not answer a connection (the first one, or one the pool opened later). */
  'DATABASE_UNREACHABLE',
  /**
   * The connection was lost while work ran on it (a server restart, a failover, a terminated backend): its
   * open transaction rolled back, or, if it was committing, its outcome is unknown.
   */
  'DATABASE_CONNECTION_LOST',
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

/**
 * SQLSTATEs of a server that is going away or cannot take the session now: connection exceptions
 * (class 08), admin/crash shutdown and "cannot connect now" (57P01–57P03), too many connections (53300).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
/** Socket errors of a server that cannot be reached or went away. */
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/**
 * Prisma's codes for the same (for read models written through a Prisma client): cannot reach the server
 * (P1001), timed out (P1002, P1008), server closed the connection (P1017), no connection from the pool in
 * time (P2024).
 */
const UNAVAILABLE_PRISMA_CODE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/**
 * SQLSTATE 55000 (object not in prerequisite state) is mostly a statement's own error (`currval` before
 * `nextval`), but at session start it is the server saying the database takes no connections now
 * (`ALTER DATABASE ... ALLOW_CONNECTIONS false`, a maintenance window). A pool opening a connection sees the
 * latter: through `withConnection` it becomes `DATABASE_UNREACHABLE`, but through the Prisma driver adapter
 * it arrives as the server's error (`{ kind: 'postgres', code: '55000', message }`), told apart by its text.
 */
const NOT_ACCEPTING_CONNECTIONS = /is not currently accepting connections/;

/**
 * True when `error` (or an error it wraps as `cause`) says the database could not be reached or was lost,
 * rather than that the statement was wrong: the same work may succeed once the database is back. A
 * handle used after `close()` counts too (the process is shutting down; its work is not at fault). Other
 * SQL errors (constraints, syntax, a missing table) are not.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  // Bounded: a cause chain is short, and a cycle must not hang.
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof DatabaseError) {
      if (current.code === 'DATABASE_UNREACHABLE' || current.code === 'DATABASE_CONNECTION_LOST' || current.code === 'DATABASE_CLOSED') return true;
    } else {
      const code = (current as { code?: unknown }).code;
      if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code) || UNAVAILABLE_PRISMA_CODE.has(code))) return true;
      const message = (current as { message?: unknown }).message;
      if (code === '55000' && typeof message === 'string' && NOT_ACCEPTING_CONNECTIONS.test(message)) return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** A driver error reduced to what an operator needs (SQLSTATE or errno, and the server's message). */
export function describeDriverError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code !== '' ? `${code}: ${error.message}` : error.message;
}
