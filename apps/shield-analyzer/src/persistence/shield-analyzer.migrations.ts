/**
 * The Shield analyzer's migrations (../../prisma/migrations), as the platform's migration runner takes them:
 * applied at startup in embedded mode, by `trustmesh db migrate deploy` (or `nx run shield-analyzer:migrate-deploy`)
 * on a server.
 */
import { join } from 'node:path';

import { locateMigrations, type MigrationSet } from '@trustmesh/platform-database';

export const SHIELD_ANALYZER_MIGRATIONS: MigrationSet = locateMigrations('shield-analyzer', join(__dirname, '..', '..', 'prisma', 'migrations'));
