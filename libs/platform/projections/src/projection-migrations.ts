/** The projections library's tables (checkpoints and active versions), for the migration runner. */
import { join } from 'node:path';

import type { MigrationSet } from '@trustmesh/platform-database';

export const PROJECTION_MIGRATIONS: MigrationSet = {
  library: 'platform-projections',
  directory: join(__dirname, '..', 'migrations'),
};
