/**
 * The console's migrations (../../prisma/migrations), as the platform's migration runner takes them: applied
 * at startup in embedded mode, by `trustmesh db migrate deploy` (or `nx run console:migrate-deploy`) on a
 * server.
 */
import { join } from 'node:path';

import { locateMigrations, type MigrationSet } from '@trustmesh/platform-database';

export const CONSOLE_MIGRATIONS: MigrationSet = locateMigrations('console', join(__dirname, '..', '..', 'prisma', 'migrations'));
