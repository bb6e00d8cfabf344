/**
 * The event store's migrations, as the migration runner takes them. Apps pass this set to `prepareSchema`
 * at startup (via `openEventStore`) and the deploy command passes it to `deployMigrations`. A bundled app
 * must ship `prisma/migrations` next to where this file ends up (see the README).
 */
import { join } from 'node:path';

import { locateMigrations, type MigrationSet } from '@trustmesh/platform-database';

export const EVENT_STORE_MIGRATIONS: MigrationSet = locateMigrations('platform-event-store', join(__dirname, '..', 'prisma', 'migrations'));
