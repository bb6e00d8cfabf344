/**
 * `node migrate.js` in the shield-analyzer bundle (`nx build shield-analyzer`): applies the platform's and the shield-analyzer's
 * migrations to DATABASE_URL and exits (`node migrate.js status` lists them). See libs/platform/backbone's
 * migrate-process.ts.
 */
import { runMigrateProcess } from '@trustmesh/platform-backbone';

import { SHIELD_ANALYZER_MIGRATIONS } from './persistence/shield-analyzer.migrations';

runMigrateProcess(SHIELD_ANALYZER_MIGRATIONS);
