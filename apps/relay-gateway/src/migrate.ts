/**
 * `node migrate.js` in the relay-gateway bundle (`nx build relay-gateway`): applies the platform's and the relay-gateway's
 * migrations to DATABASE_URL and exits (`node migrate.js status` lists them). See libs/platform/backbone's
 * migrate-process.ts.
 */
import { runMigrateProcess } from '@trustmesh/platform-backbone';

import { RELAY_GATEWAY_MIGRATIONS } from './persistence/relay-gateway.migrations';

runMigrateProcess(RELAY_GATEWAY_MIGRATIONS);
