/**
 * The migration runner: applies the SQL migrations a library commits (`prisma/migrations/<timestamp>_<name>/
 * migration.sql`, generated offline by the Prisma CLI) with the same code on PGlite and on a Postgres
 * server. Prisma's own `migrate deploy` is not used: through `@prisma/adapter-pg` against a Postgres 15
 * server it failed here ("Column type 'name' could not be deserialized"), and an app should not need the
 * Prisma CLI at run time.
 *
 * - One history table for every library, `_trustmesh_migrations (library, migration, checksum, ...)`: each
 *   owning library keeps its own rows, keyed by its name, so libraries migrate independently.
 * - Each migration runs in its own transaction together with its history row: it is applied whole or not
 *   at all (Postgres DDL is transactional), and a failure stops the run with `MIGRATION_FAILED`.
 * - Checksums (SHA-256 of the file, line endings normalised): an applied migration whose file changed is
 *   refused (`MIGRATION_CHECKSUM_MISMATCH`), and so is an applied migration the folder no longer has
 *   (`MIGRATION_NOT_IN_FOLDER`). Everything is checked before anything is applied.
 * - A Postgres session advisory lock around the whole run, so concurrent starters queue instead of racing;
 *   the one that waited then finds nothing left to do. A session advisory lock is re-entrant within its
 *   session, and every handle of one PGlite shares its one session, so runs in this process also queue per
 *   database location first (`inProcessRuns`); the same wait counts toward `lockTimeoutMs`.
 * - Idempotent: a rerun applies nothing.
 *
 * When to run it (ARCHITECTURE.md, "Two ways to run"): embedded mode applies migrations at startup
 * (`prepareSchema`); with a server, only the deploy command applies them (`deployMigrations`, or
 * `migrations.cli.ts deploy`), and startup only verifies that none is pending.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { openDatabase, type Database, type DatabaseConfig, type OpenDatabaseOptions } from './database';
import { MigrationError, describeDriverError } from './database.errors';
import type { SqlConnection, SqlExecutor } from './sql-connection';

/** The migrations one library owns. */
export interface MigrationSet {
  /** The owning library's Nx project name, e.g. `platform-event-store`; keys its history rows. */
  readonly library: string;
  /** Absolute path of its migrations folder (`<library>/prisma/migrations`). */
  readonly directory: string;
}

export interface MigrationFile {
  /** The folder name, `<yyyymmddhhmmss>_<name>`; migrations apply in name order. */
  readonly name: string;
  readonly sql: string;
  /** SHA-256 (hex) of the SQL with CRLF line endings read as LF. */
  readonly checksum: string;
}

export interface AppliedMigration {
  readonly name: string;
  readonly durationMs: number;
}

export interface MigrationSetReport {
  readonly library: string;
  /** Applied by this run, in order. */
  readonly applied: readonly AppliedMigration[];
  /** Already applied before this run. */
  readonly alreadyApplied: number;
}

export interface MigrationSetStatus {
  readonly library: string;
  readonly applied: readonly string[];
  readonly pending: readonly string[];
}

export interface MigrateOptions {
  /** How long to wait for another migrator's lock before `MIGRATION_LOCK_TIMEOUT` (default 60 s). */
  lockTimeoutMs?: number;
  /** Told about each migration as it is applied (for logs). */
  onApplied?: (library: string, migration: AppliedMigration) => void;
  /**
   * The command `MIGRATIONS_PENDING` tells an operator to run (default `npx trustmesh db migrate deploy`, which
   * applies every library's and app's migrations in this repository).
   */
  deployCommand?: string;
}

/** The one command that applies every pending migration of every owner (apps/cli `db migrate deploy`). */
export const DEFAULT_DEPLOY_COMMAND = 'npx trustmesh db migrate deploy';

export const MIGRATION_HISTORY_TABLE = '_trustmesh_migrations';

/** Key of the session advisory lock that serialises migrators on one database ("tm-migr" in ASCII). */
export const MIGRATION_LOCK_KEY = '0x746d2d6d69677200';

const HISTORY_DDL = `CREATE TABLE IF NOT EXISTS ${MIGRATION_HISTORY_TABLE} (
  library     text        NOT NULL,
  migration   text        NOT NULL,
  checksum    text        NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now(),
  duration_ms integer     NOT NULL,
  PRIMARY KEY (library, migration)
)`;

const LIBRARY_NAME = /^[a-z0-9][a-z0-9-]{0,99}$/;

export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n'), 'utf8').digest('hex');
}

/** Reads a library's migration folders, in the order they apply. */
export async function loadMigrations(set: MigrationSet): Promise<MigrationFile[]> {
  if (!LIBRARY_NAME.test(set.library)) {
    throw new MigrationError('MIGRATION_SET_INVALID', `A migration set's library must be a kebab-case project name (got ${JSON.stringify(set.library)}).`);
  }
  let entries;
  try {
    entries = await readdir(set.directory, { withFileTypes: true });
  } catch (error) {
    throw new MigrationError('MIGRATIONS_DIRECTORY_MISSING', `${set.library}: no migrations folder at ${set.directory}.`, { cause: error });
  }
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const path = join(set.directory, name, 'migration.sql');
      let sql: string;
      try {
        if (!(await stat(path)).isFile()) throw new Error('not a file');
        sql = await readFile(path, 'utf8');
      } catch (error) {
        throw new MigrationError('MIGRATION_FILE_MISSING', `${set.library}/${name} has no migration.sql.`, { cause: error });
      }
      return { name, sql, checksum: migrationChecksum(sql) };
    }),
  );
}

interface HistoryRow {
  migration: string;
  checksum: string;
}

interface Plan {
  set: MigrationSet;
  alreadyApplied: string[];
  pending: MigrationFile[];
}

/** Checks history against the folders (refusing changed or unknown applied migrations) and lists what is pending. */
async function plan(db: SqlExecutor, sets: readonly MigrationSet[], files: readonly MigrationFile[][]): Promise<Plan[]> {
  const [{ present } = { present: false }] = await db.query<{ present: boolean }>(
    `SELECT to_regclass('${MIGRATION_HISTORY_TABLE}') IS NOT NULL AS present`,
  );
  // One query at a time: `db` may be a single connection (pg refuses overlapping queries on one client from v9).
  const plans: Plan[] = [];
  for (const [index, set] of sets.entries()) {
    const migrations = files[index] ?? [];
    const rows = present
      ? await db.query<HistoryRow>(`SELECT migration, checksum FROM ${MIGRATION_HISTORY_TABLE} WHERE library = $1 ORDER BY migration`, [set.library])
      : [];
    const byName = new Map(migrations.map((migration) => [migration.name, migration]));
    for (const row of rows) {
      const file = byName.get(row.migration);
      if (!file) {
        throw new MigrationError(
          'MIGRATION_NOT_IN_FOLDER',
          `${set.library}/${row.migration} is applied to this database but is not in ${set.directory}; ` +
            'the database was migrated by a newer build, or a migration folder was deleted.',
        );
      }
      if (file.checksum !== row.checksum) {
        throw new MigrationError(
          'MIGRATION_CHECKSUM_MISMATCH',
          `${set.library}/${row.migration} changed after it was applied (checksum ${row.checksum.slice(0, 12)}… applied, ` +
            `${file.checksum.slice(0, 12)}… on disk). Applied migrations are never edited: restore the file and add a new migration.`,
        );
      }
    }
    const applied = new Set(rows.map((row) => row.migration));
    plans.push({ set, alreadyApplied: [...applied], pending: migrations.filter((migration) => !applied.has(migration.name)) });
  }
  return plans;
}

/** The run in progress (and those queued after it) per database location, in this process. */
const inProcessRuns = new Map<string, Promise<void>>();

/** Runs `work` after every earlier run of this process on `location`, or gives up at `deadline`. */
async function afterInProcessRuns<T>(location: string, deadline: number, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const earlier = inProcessRuns.get(location) ?? Promise.resolve();
  let finished!: () => void;
  const mine = earlier.then(() => new Promise<void>((resolve) => (finished = resolve)));
  inProcessRuns.set(location, mine);
  try {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()))));
    const turn = await Promise.race([earlier.then(() => 'turn' as const), timedOut]);
    clearTimeout(timer);
    if (turn === 'timeout') {
      throw new MigrationError('MIGRATION_LOCK_TIMEOUT', `Another migrator held the migration lock for more than ${timeoutMs} ms; is a deploy stuck?`);
    }
    return await work();
  } finally {
    // Whoever queued after this run may go once it ends (also when it gave up waiting).
    void earlier.then(() => finished());
    void mine.then(() => {
      if (inProcessRuns.get(location) === mine) inProcessRuns.delete(location);
    });
  }
}

async function withMigrationLock<T>(connection: SqlConnection, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await connection.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [BigInt(MIGRATION_LOCK_KEY).toString()]);
    if (row?.locked) break;
    if (Date.now() >= deadline) {
      throw new MigrationError('MIGRATION_LOCK_TIMEOUT', `Another migrator held the migration lock for more than ${timeoutMs} ms; is a deploy stuck?`);
    }
    await new Promise((done) => setTimeout(done, 50 + Math.floor(Math.random() * 100)));
  }
  try {
    return await work();
  } finally {
    await connection.query('SELECT pg_advisory_unlock($1::bigint)', [BigInt(MIGRATION_LOCK_KEY).toString()]);
  }
}

/** Applies every pending migration of `sets`, in set order then name order. */
export async function applyMigrations(database: Database, sets: readonly MigrationSet[], options: MigrateOptions = {}): Promise<MigrationSetReport[]> {
  const files = await Promise.all(sets.map(loadMigrations));
  const timeoutMs = options.lockTimeoutMs ?? 60_000;
  return afterInProcessRuns(database.location, Date.now() + timeoutMs, timeoutMs, () => database.withConnection((connection) =>
    withMigrationLock(connection, timeoutMs, async () => {
      await connection.exec(HISTORY_DDL);
      const plans = await plan(connection, sets, files);
      const reports: MigrationSetReport[] = [];
      for (const { set, alreadyApplied, pending } of plans) {
        const applied: AppliedMigration[] = [];
        for (const migration of pending) {
          const started = performance.now();
          try {
            await connection.transaction(async (transaction) => {
              await transaction.exec(migration.sql);
              const durationMs = Math.round(performance.now() - started);
              await transaction.query(`INSERT INTO ${MIGRATION_HISTORY_TABLE} (library, migration, checksum, duration_ms) VALUES ($1, $2, $3, $4)`, [
                set.library,
                migration.name,
                migration.checksum,
                durationMs,
              ]);
            });
          } catch (error) {
            throw new MigrationError(
              'MIGRATION_FAILED',
              `${set.library}/${migration.name} failed and was rolled back (${describeDriverError(error)}); later migrations were not applied.`,
              { cause: error },
            );
          }
          const done = { name: migration.name, durationMs: Math.round(performance.now() - started) };
          applied.push(done);
          options.onApplied?.(set.library, done);
        }
        reports.push({ library: set.library, applied, alreadyApplied: alreadyApplied.length });
      }
      return reports;
    }),
  ));
}

/** What is applied and what is pending, per set; refuses changed or unknown applied migrations like a run would. */
export async function migrationStatus(database: Database, sets: readonly MigrationSet[]): Promise<MigrationSetStatus[]> {
  const files = await Promise.all(sets.map(loadMigrations));
  const plans = await database.withConnection((connection) => plan(connection, sets, files));
  return plans.map(({ set, alreadyApplied, pending }) => ({
    library: set.library,
    applied: alreadyApplied,
    pending: pending.map((migration) => migration.name),
  }));
}

/**
 * What an app does with its libraries' migrations at startup: embedded, it applies them; on a server it
 * only verifies that none is pending, because several replicas start at once and schema changes there are a
 * deliberate step. An app passes every set it needs in one call, so that `MIGRATIONS_PENDING` names every
 * pending migration of every owner at once (`owner/migration`, in set order) and the one command that applies them all
 * (`options.deployCommand`), not a per-library command that would leave the rest pending.
 */
export async function prepareSchema(database: Database, sets: readonly MigrationSet[], options: MigrateOptions = {}): Promise<void> {
  if (database.mode === 'embedded') {
    await applyMigrations(database, sets, options);
    return;
  }
  const pending = (await migrationStatus(database, sets)).filter((status) => status.pending.length > 0);
  const count = pending.reduce((total, status) => total + status.pending.length, 0);
  if (count > 0) {
    const listed = pending.flatMap((status) => status.pending.map((name) => `${status.library}/${name}`)).join(', ');
    throw new MigrationError(
      'MIGRATIONS_PENDING',
      `The database at ${database.location} has ${count} pending migration(s) (${listed}). ` +
        `Apply them all with \`${options.deployCommand ?? DEFAULT_DEPLOY_COMMAND}\` (DATABASE_URL set to this database) before starting.`,
    );
  }
}

/** The deploy command's work: opens the configured database, applies pending migrations, closes it. */
export async function deployMigrations(
  config: DatabaseConfig,
  sets: readonly MigrationSet[],
  options: MigrateOptions & OpenDatabaseOptions = {},
): Promise<MigrationSetReport[]> {
  const database = await openDatabase(config, options);
  try {
    return await applyMigrations(database, sets, options);
  } finally {
    await database.close();
  }
}
