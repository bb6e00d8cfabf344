/**
 * `node migrate.js` in the console bundle (`nx build console`): applies the platform's and the console's
 * migrations to DATABASE_URL and exits (`node migrate.js status` lists them). See libs/platform/backbone's
 * migrate-process.ts.
 */
import { runMigrateProcess } from '@trustmesh/platform-backbone';

import { CONSOLE_MIGRATIONS } from './persistence/console.migrations';

runMigrateProcess(CONSOLE_MIGRATIONS);
