/**
 * `trustmesh db migrate <deploy|status>`: the explicit deploy step of distributed mode, for every
 * library that owns tables (event store, local bus, projections). Embedded mode migrates at startup and
 * needs no command. The database is the one the apps use: `DATABASE_URL`, else embedded PGlite under
 * `TRUSTMESH_DATA_DIR`.
 */
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { runMigrationsCommand } from '@trustmesh/platform-database';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';

import { UsageError, type CommandIo } from './command-io';

export async function runDbMigrate(args: readonly string[], io: CommandIo, env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  const [command, ...rest] = args;
  if ((command !== 'deploy' && command !== 'status') || rest.length > 0) {
    throw new UsageError('db migrate takes exactly one of: deploy, status');
  }
  const sets = [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS].map((set) => `${set.library}=${set.directory}`);
  return runMigrationsCommand([command, ...sets], env, io);
}
