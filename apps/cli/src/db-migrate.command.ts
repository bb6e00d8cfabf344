/**
 * `trustmesh db migrate <deploy|status>`: the explicit deploy step of distributed mode, for every
 * library and app that owns tables (event store, local bus, projections, relay gateway, shield analyzer, card
 * registry, console).
 * Embedded mode migrates at startup and needs no command. The database is the one the apps use: `DATABASE_URL`, else embedded PGlite under
 * `TRUSTMESH_DATA_DIR`.
 */
import { join } from 'node:path';

import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { runMigrationsCommand } from '@trustmesh/platform-database';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';

import { UsageError, type CommandIo } from './command-io';

/**
 * Apps that own tables. Referenced by folder, not imported: an app's code is not a library (the relay
 * gateway's set is `RELAY_GATEWAY_MIGRATIONS` in apps/relay-gateway/src/persistence).
 */
const APP_MIGRATIONS = [
  { library: 'relay-gateway', directory: join(__dirname, '..', '..', 'relay-gateway', 'prisma', 'migrations') },
  { library: 'shield-analyzer', directory: join(__dirname, '..', '..', 'shield-analyzer', 'prisma', 'migrations') },
  { library: 'card-registry', directory: join(__dirname, '..', '..', 'card-registry', 'prisma', 'migrations') },
  { library: 'console', directory: join(__dirname, '..', '..', 'console', 'prisma', 'migrations') },
];

export async function runDbMigrate(args: readonly string[], io: CommandIo, env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  const [command, ...rest] = args;
  if ((command !== 'deploy' && command !== 'status') || rest.length > 0) {
    throw new UsageError('db migrate takes exactly one of: deploy, status');
  }
  const sets = [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, ...APP_MIGRATIONS].map((set) => `${set.library}=${set.directory}`);
  return runMigrationsCommand([command, ...sets], env, io);
}
