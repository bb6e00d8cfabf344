/**
 * The card registry's migrations (../../prisma/migrations), as the platform's migration runner takes them:
 * applied at startup in embedded mode, by `trustmesh db migrate deploy` (or `nx run card-registry:migrate-deploy`)
 * on a server.
 */
import { join } from 'node:path';

import { locateMigrations, type MigrationSet } from '@trustmesh/platform-database';

export const CARD_REGISTRY_MIGRATIONS: MigrationSet = locateMigrations('card-registry', join(__dirname, '..', '..', 'prisma', 'migrations'));
