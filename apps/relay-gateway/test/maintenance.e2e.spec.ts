/**
 * The platform's maintenance in a running gateway, on embedded PGlite and on a Postgres server (local bus
 * both): workspaces created over gRPC leave outbox rows, bus messages and the read model's applied event
 * ids; made older than their retention, they go away on the gateway's own schedule
 * (`TRUSTMESH_MAINTENANCE_INTERVAL_MS`), the gateway goes on serving, and closing it stops the scheduler.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

import type * as grpc from '@grpc/grpc-js';
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTempDataDir, createTestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { waitUntil } from '@trustmesh/platform-testing';

import { RELAY_GATEWAY_MIGRATIONS } from '../src/persistence/relay-gateway.migrations';
import type { RelayGatewayHandle } from '../src/relay-gateway.bootstrap';
import { bearer, call, controlClient, startTestGateway, type RelayControlClient } from './support/gateway.fixture';

/** Where the gateway runs, and the environment and credential that start it there. */
async function target(kind: 'embedded' | 'postgres'): Promise<{ env: Record<string, string>; credential: string | null; dispose(): Promise<void> }> {
  if (kind === 'embedded') {
    const dir = await createTempDataDir('relay-gateway-maintenance');
    return { env: { TRUSTMESH_DATA_DIR: dir.dataDir }, credential: null, dispose: () => dir.remove() };
  }
  const database = await createTestPostgresDatabase('relay-gateway-maintenance');
  await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
  const credential = `tmsc_${randomBytes(32).toString('base64url')}`;
  return {
    env: {
      DATABASE_URL: database.url,
      RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
      RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(credential).digest('hex'),
      RELAY_TLS: 'terminated-by-proxy',
      RELAY_HTTP_HOST: '127.0.0.1',
      RELAY_GRPC_HOST: '127.0.0.1',
    },
    credential,
    dispose: () => database.drop(),
  };
}

describe.each(['embedded', 'postgres'] as const)('relay gateway maintenance (%s database, local bus)', (kind) => {
  let gateway: RelayGatewayHandle;
  let client: RelayControlClient;
  let auth: grpc.Metadata;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    const where = await target(kind);
    dispose = where.dispose;
    ({ gateway } = await startTestGateway({ ...where.env, TRUSTMESH_MAINTENANCE_INTERVAL_MS: '1000', TRUSTMESH_BUS: 'local' }));
    client = controlClient(gateway);
    auth = bearer(where.credential ?? gateway.developmentServiceCredential);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await gateway?.close();
    await dispose?.();
  }, 60_000);

  const rows = async (table: string) =>
    gateway.infrastructure.database.withConnection(async (sql) => Number((await sql.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${table}`))[0]?.n));
  const backdate = (table: string, column: string, days: number) =>
    gateway.infrastructure.database.withConnection((sql) => sql.query(`UPDATE ${table} SET ${column} = now() - $1::integer * interval '1 day'`, [days]));
  const createWorkspace = () =>
    call(client, client.createWorkspace, { requestId: randomUUID(), ownerUserId: 'user-1', displayName: 'Maintained', endToEndEncrypted: false }, auth);

  it('purges the outbox, the bus log and the read model\'s applied ids once they are old, on its own schedule, and keeps serving', async () => {
    for (let n = 0; n < 3; n += 1) await createWorkspace();
    await waitUntil(async () => (await gateway.infrastructure.store.outboxBacklog()) === 0, { what: 'the outbox published' });
    await gateway.infrastructure.projection.catchUp(30_000);
    expect(await rows('outbox')).toBeGreaterThanOrEqual(3);
    expect(await rows('bus_messages')).toBeGreaterThanOrEqual(3);
    expect(await rows('projection_applied_events')).toBeGreaterThanOrEqual(3);
    const events = await rows('events');

    await backdate('outbox', 'published_at', 8);
    await backdate('bus_messages', 'published_at', 8);
    await backdate('projection_applied_events', 'applied_at', 31);
    const runsBefore = gateway.infrastructure.maintenance.completedRuns;
    await waitUntil(
      async () =>
        gateway.infrastructure.maintenance.completedRuns > runsBefore &&
        (await rows('outbox')) === 0 &&
        (await rows('bus_messages')) === 0 &&
        (await rows('projection_applied_events')) === 0,
      { timeoutMs: 30_000, what: 'a scheduled run to purge the outbox, the bus log and the applied ids' },
    );
    expect(await rows('events')).toBe(events);

    // After the purge the gateway still publishes and projects: the read model takes the next event.
    await createWorkspace();
    await waitUntil(async () => (await gateway.infrastructure.store.outboxBacklog()) === 0, { what: 'the new event published' });
    await gateway.infrastructure.projection.catchUp(30_000);
    expect(await rows('projection_applied_events')).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it('stops its maintenance when the gateway closes', async () => {
    client.close();
    await gateway.close();
    expect(await gateway.infrastructure.maintenance.runNow()).toEqual({});
  }, 60_000);
});
