/**
 * @trustmesh/platform-database/testing: real databases for other libraries' test suites. Test code only:
 * production code imports `@trustmesh/platform-database`.
 */
export {
  createTestDatabase,
  createTestPostgresDatabase,
  createTempDataDir,
  createSeededDataDir,
  testPostgresAdminUrl,
  TEST_DATABASE_KINDS,
  TEST_POSTGRES_URL_VARIABLE,
  type TestDatabase,
  type TestDatabaseKind,
  type TestPostgresDatabase,
} from './test-databases';
export { databaseOutage, type DatabaseOutage } from './database-outage';
