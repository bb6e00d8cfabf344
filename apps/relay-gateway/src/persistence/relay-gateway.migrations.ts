/**
 * The relay gateway's migrations (../../prisma/migrations), as the platform's migration runner takes them:
 * applied at startup in embedded mode, by `trustmesh db migrate deploy` (or `nx run relay-gateway:migrate-deploy`)
 * on a server.
 */
import { join } from 'node:path';

import { locateMigrations, type MigrationSet } from '@trustmesh/platform-database';

export const RELAY_GATEWAY_MIGRATIONS: MigrationSet = locateMigrations('relay-gateway', join(__dirname, '..', '..', 'prisma', 'migrations'));
