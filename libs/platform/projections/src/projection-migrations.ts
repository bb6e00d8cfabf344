/** The projections library's tables (checkpoints and active versions), for the migration runner. */
import { join } from 'node:path';

import { locateMigrations, type MigrationSet } from '@trustmesh/platform-database';

export const PROJECTION_MIGRATIONS: MigrationSet = locateMigrations('platform-projections', join(__dirname, '..', 'migrations'));
