/**
 * @trustmesh/platform-backbone: what every platform service's process is built on, in one place: the
 * `main.ts` loop (`runServiceProcess`) and the opening and reverse closing of the database, event store,
 * bus, Prisma client, outbox publisher, projections and maintenance (`openAppBackbone`), and a bundle's
 * `migrate.js` (`runMigrateProcess`).
 */
export { runServiceProcess, EXIT_CONFIG, type RunningService } from './service-process';
export { openAppBackbone, type AppBackbone, type AppBackboneConfig, type AppBackboneOptions, type ProjectionRunners, type DisconnectableClient } from './app-backbone';
export { appMigrationSets, runMigrateProcess } from './migrate-process';
export { CleanupStack, type Cleanup } from './cleanup-stack';
export { registerBackboneMetrics, type BackboneMetricsSources } from './backbone.metrics';
