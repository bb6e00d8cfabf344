/** The local bus's tables (`libs/platform/bus/migrations`), for the database library's migration runner. */
import { join } from 'node:path';

import type { MigrationSet } from '@trustmesh/platform-database';

export const LOCAL_BUS_MIGRATIONS: MigrationSet = {
  library: 'platform-bus',
  directory: join(__dirname, '..', '..', 'migrations'),
};
