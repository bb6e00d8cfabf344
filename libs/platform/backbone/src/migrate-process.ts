/**
 * The `migrate.js` of an app's bundle (`nx build <app>`; tools/bundle/README.md): applies everything an app's
 * process needs in its database, the platform's tables (event store, local bus, projections) and the app's
 * own, to DATABASE_URL and exits. In distributed mode apps never migrate at start (they only refuse to start
 * with `MIGRATIONS_PENDING`); the Kubernetes migration Job and the compose migration service run this.
 *
 *   node migrate.js           apply every pending migration (the default, `deploy`)
 *   node migrate.js status    list applied and pending migrations; exit 1 if any is pending
 *
 * The local bus's tables are included whichever bus the app is configured with: they are few, and the same
 * database then serves either adapter. Exit codes are `runMigrationsCommand`'s.
 */
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { runMigrationsCommand, type MigrationSet } from '@trustmesh/platform-database';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';

/** Every migration set an app with these tables of its own needs, platform first. */
export function appMigrationSets(app: MigrationSet): MigrationSet[] {
  return [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, app];
}

/** Runs `deploy` (or the command in argv) over `appMigrationSets(app)` and sets the process's exit code. */
export function runMigrateProcess(app: MigrationSet): void {
  const command = process.argv[2] ?? 'deploy';
  const argv = [command, ...appMigrationSets(app).map((set) => `${set.library}=${set.directory}`)];
  runMigrationsCommand(argv, process.env, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`migrate: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 70;
    },
  );
}
