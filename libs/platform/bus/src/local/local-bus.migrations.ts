/** The local bus's tables (`libs/platform/bus/migrations`), for the database library's migration runner. */
import { join } from 'node:path';

import { locateMigrations, type MigrationSet } from '@trustmesh/platform-database';

export const LOCAL_BUS_MIGRATIONS: MigrationSet = locateMigrations('platform-bus', join(__dirname, '..', '..', 'migrations'));
