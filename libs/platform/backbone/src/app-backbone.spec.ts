// The backbone on an embedded database with the local bus, as a single-machine app runs: the app's migrations
// applied after the platform's, publishing in the append only when asked, one runner per read model, and
// everything opened before a failing step closed again.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { loadPlatformConfig } from '@trustmesh/platform-config';
import type { SqlExecutor } from '@trustmesh/platform-database';
import { createTempDataDir, createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';
import { SILENT_LOGGER } from '@trustmesh/platform-logging';
import type { ProjectionDefinition } from '@trustmesh/platform-projections';

import { openAppBackbone, type AppBackboneOptions, type DisconnectableClient } from './app-backbone';

const TOPIC = 'backbone-test.items.v1';

function readModel(name: string, version = 1): ProjectionDefinition<SqlExecutor> {
  return { name, version, topics: [TOPIC], apply: async () => undefined };
}

function fakeClient(): DisconnectableClient & { disconnects: number } {
  const client = {
    disconnects: 0,
    $disconnect: async () => {
      client.disconnects++;
    },
  };
  return client;
}

describe('openAppBackbone (embedded, local bus)', () => {
  let dir: Awaited<ReturnType<typeof createTempDataDir>>;
  let migrations: string;
  const databases: TestDatabase[] = [];
  beforeAll(async () => {
    dir = await createTempDataDir('app-backbone-migrations');
    migrations = join(dir.dataDir, 'app-migrations');
    await mkdir(join(migrations, '20260101000000_init'), { recursive: true });
    await writeFile(join(migrations, '20260101000000_init', 'migration.sql'), 'CREATE TABLE backbone_test_items (id TEXT PRIMARY KEY);\n');
  });
  afterAll(async () => {
    await Promise.all(databases.splice(0).map((database) => database.dispose()));
    await dir.remove();
  });

  const configFor = async (label: string) => {
    const database = await createTestDatabase('pglite', label);
    databases.push(database);
    return { platform: { ...loadPlatformConfig({}), database: database.config }, producer: 'backbone-test@0.0.0' };
  };

  const options = (client: DisconnectableClient, rest: Partial<AppBackboneOptions<DisconnectableClient>> = {}) => ({
    migrations: [{ library: 'backbone-test', directory: migrations }],
    defaultTopic: TOPIC,
    projections: [readModel('backbone-test-a'), readModel('backbone-test-b')] as const,
    openClient: () => client,
    ...rest,
  });

  it('opens every part, applies the app migrations, and closes the client once', async () => {
    const config = await configFor('backbone-open');
    const client = fakeClient();
    const backbone = await openAppBackbone(config, SILENT_LOGGER, options(client));
    try {
      expect(backbone.client).toBe(client);
      expect(backbone.projections.map((runner) => runner.groupId)).toHaveLength(2);
      expect(backbone.store.publishesInTransaction).toBe(false);
      const rows = await backbone.database.withConnection((sql) => sql.query<{ n: number }>('SELECT count(*)::int AS n FROM backbone_test_items'));
      expect(rows).toEqual([{ n: 0 }]);
      const appended = await backbone.store.append('item-1', 'no-stream', [{ eventType: 'ItemAdded', data: { id: 'item-1' } }]);
      expect(appended.events).toHaveLength(1);
    } finally {
      await Promise.all([backbone.close(), backbone.close()]);
    }
    expect(client.disconnects).toBe(1);
  }, 60_000);

  it('publishes in the append only when the app asks for it', async () => {
    const config = await configFor('backbone-in-tx');
    const backbone = await openAppBackbone(config, SILENT_LOGGER, options(fakeClient(), { publishInTransaction: true }));
    try {
      expect(backbone.store.publishesInTransaction).toBe(true);
    } finally {
      await backbone.close();
    }
  }, 60_000);

  it('closes what it opened when a later step fails, and reports the failure', async () => {
    const config = await configFor('backbone-fail');
    const client = fakeClient();
    // Version 0 is refused when its runner is built, after the database, bus, store, client and outbox opened.
    await expect(openAppBackbone(config, SILENT_LOGGER, options(client, { projections: [readModel('backbone-test-bad', 0)] }))).rejects.toThrow('projection version');
    expect(client.disconnects).toBe(1);
    // The embedded database was released: it opens again.
    const again = await openAppBackbone(config, SILENT_LOGGER, options(fakeClient()));
    await again.close();
  }, 60_000);
});
