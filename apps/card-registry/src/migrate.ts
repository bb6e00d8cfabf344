/**
 * `node migrate.js` in the card-registry bundle (`nx build card-registry`): applies the platform's and the card-registry's
 * migrations to DATABASE_URL and exits (`node migrate.js status` lists them). See libs/platform/backbone's
 * migrate-process.ts.
 */
import { runMigrateProcess } from '@trustmesh/platform-backbone';

import { CARD_REGISTRY_MIGRATIONS } from './persistence/card-registry.migrations';

runMigrateProcess(CARD_REGISTRY_MIGRATIONS);
