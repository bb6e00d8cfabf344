/**
 * The deploy command for migrations, for distributed mode where apps never migrate at startup (run as a
 * process by migrations.cli.ts, and by a bundled app's `migrate.js`):
 *
 *   tsx --tsconfig tsconfig.base.json libs/platform/database/src/migrations.cli.ts deploy <library>=<migrations dir>...
 *   tsx --tsconfig tsconfig.base.json libs/platform/database/src/migrations.cli.ts status <library>=<migrations dir>...
 *
 * The database comes from the environment exactly as the apps read it (`DATABASE_URL`, else embedded under
 * `TRUSTMESH_DATA_DIR`). Each library that owns tables has an Nx target that calls this with its own set
 * (`nx run platform-event-store:migrate-deploy`). Exit status: 0 done, 1 a migration or the database failed
 * (its error code is printed), 2 a usage or configuration error.
 */
import { resolve } from 'node:path';

import { ConfigError, loadPlatformConfig } from '@trustmesh/platform-config';

import { DatabaseError, MigrationError } from './database.errors';
import { deployMigrations, migrationStatus, type MigrationSet } from './migration-runner';
import { openDatabase } from './database';

export interface MigrationsCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const USAGE = `Usage: migrations.cli.ts <deploy|status> <library>=<migrations dir>...
  deploy  apply every pending migration (in a transaction each, under an advisory lock)
  status  list applied and pending migrations; exit 1 if any is pending
The database is DATABASE_URL, or embedded PGlite under TRUSTMESH_DATA_DIR (default .data).
`;

export async function runMigrationsCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: MigrationsCommandIo): Promise<number> {
  const [command, ...rest] = argv;
  if ((command !== 'deploy' && command !== 'status') || rest.length === 0) {
    io.stderr(USAGE);
    return 2;
  }
  const sets: MigrationSet[] = [];
  for (const argument of rest) {
    const at = argument.indexOf('=');
    if (at <= 0 || at === argument.length - 1) {
      io.stderr(`migrations: expected <library>=<migrations dir>, got ${JSON.stringify(argument)}\n\n${USAGE}`);
      return 2;
    }
    sets.push({ library: argument.slice(0, at), directory: resolve(argument.slice(at + 1)) });
  }
  try {
    const { database: config } = loadPlatformConfig(env);
    if (command === 'deploy') {
      const reports = await deployMigrations(config, sets, {
        onApplied: (library, migration) => io.stdout(`applied ${library}/${migration.name} (${migration.durationMs} ms)\n`),
      });
      for (const report of reports) {
        io.stdout(`${report.library}: ${report.applied.length} applied, ${report.alreadyApplied} already applied\n`);
      }
      return 0;
    }
    const database = await openDatabase(config);
    try {
      const statuses = await migrationStatus(database, sets);
      for (const status of statuses) {
        for (const name of status.applied) io.stdout(`applied  ${status.library}/${name}\n`);
        for (const name of status.pending) io.stdout(`pending  ${status.library}/${name}\n`);
      }
      return statuses.some((status) => status.pending.length > 0) ? 1 : 0;
    } finally {
      await database.close();
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`migrations: ${error.message}\n`);
      return 2;
    }
    if (error instanceof MigrationError || error instanceof DatabaseError) {
      io.stderr(`migrations: ${error.code}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

