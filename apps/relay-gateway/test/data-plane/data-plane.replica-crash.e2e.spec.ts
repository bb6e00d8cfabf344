/**
 * The replica holding a workspace's Companion dies (SIGKILL) or stops answering (SIGSTOP) while a browser on
 * another replica uses the workspace: two gateway processes on one Postgres server, with the local bus over it
 * and with the Kafka adapter on librdkafka's mock cluster.
 * The liveness sweep is set far beyond the test (RELAY_REPLICA_TIMEOUT_SECONDS=3600), so whatever the browser
 * and GetWorkspaceStatus see comes from the routing receipts, not from the sweep:
 *
 * - the browser's next request is not lost silently: it gets `session.error WORKSPACE_OFFLINE` (retryable,
 *   4012), and GetWorkspaceStatus and a new session's `session.ready` report the workspace offline;
 * - a replica that was only cut off, not dead, re-asserts its Companion once it runs again: the workspace is
 *   online again everywhere, and requests reach the Companion.
 */
import { randomUUID } from 'node:crypto';

import { WebSocket } from 'ws';

import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';
import { RelayClient, RelayClientError } from '@trustmesh/relay-client';

import { RELAY_GATEWAY_MIGRATIONS } from '../../src/persistence/relay-gateway.migrations';
import { call } from '../support/gateway.fixture';
import { frames } from './support/frames';
import { childAuth, enrollThrough, replicaEnv, startGatewayChild, statusFrom, ticketFrom, type GatewayChild } from './support/gateway.child';
import { browser, companion, type TestPeer } from './support/peers';

const ORIGIN = 'https://app.example';
const BUS_KINDS = ['local', 'kafka'] as const;

describe.each(BUS_KINDS)('the replica holding the Companion stops (%s bus)', (bus) => {
  const kafka = bus === 'kafka' ? useKafkaCluster() : undefined;
  let database: TestPostgresDatabase;
  const gateways: GatewayChild[] = [];
  const peers: TestPeer[] = [];
  /** Each test's topics and consumer groups are its own, as its database is. */
  let prefix: string;
  let replicaA: GatewayChild;
  let replicaB: GatewayChild;
  let workspaceId: string;
  let companionPeer: TestPeer;

  async function replica(replicaId: string): Promise<GatewayChild> {
    const gateway = await startGatewayChild({
      ...replicaEnv({ databaseUrl: database.url, bus, ...(kafka ? { kafkaBrokers: kafka.brokers } : {}), topicPrefix: prefix }, replicaId),
      // The sweep never acts within the test: only the routing receipts can tell the Companion is unreachable.
      RELAY_REPLICA_TIMEOUT_SECONDS: '3600',
      RELAY_ROUTE_RECEIPT_TIMEOUT_MS: '2000',
    });
    gateways.push(gateway);
    return gateway;
  }

  /** A browser session on replica A, open and past its first ACK; `workspaceStatus` from its session.ready. */
  async function sessionOnA(): Promise<TestPeer> {
    const session = await browser(replicaA.wsUrl, await ticketFrom(replicaA, workspaceId, 'user-1', ORIGIN), ORIGIN);
    peers.push(session);
    session.send(frames.ack(workspaceId, -1));
    return session;
  }

  /** A request from a session on A answered by the Companion on B: the cross-replica path works. */
  async function roundTrip(session: TestPeer): Promise<void> {
    const request = frames.request(workspaceId);
    session.send(request);
    await companionPeer.waitFor((frame) => frame['requestId'] === request.requestId, 'the request at the Companion on B');
    companionPeer.send(frames.response(workspaceId, request.requestId));
    await session.waitFor((frame) => frame.type === 'runtime.response' && frame['requestId'] === request.requestId, 'the response on A');
  }

  beforeEach(async () => {
    database = await createTestPostgresDatabase('relay-gateway-replica-crash');
    prefix = `t${randomUUID().slice(0, 8)}.`;
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
    [replicaA, replicaB] = await Promise.all([replica('replica-a'), replica('replica-b')]);
    const device = await enrollThrough(replicaA);
    workspaceId = device.workspaceId;
    await waitUntil(
      async () => (await call(replicaB.client, replicaB.client.listDevices, { workspaceId, pageSize: 0, pageToken: '' }, childAuth)).devices.length === 1,
      { what: 'the device in the read model on replica B', timeoutMs: 120_000, intervalMs: 250 },
    );
    companionPeer = await companion(replicaB.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
    peers.push(companionPeer);
    await waitUntil(async () => (await statusFrom(replicaA, workspaceId)).status === 'online', { what: 'the workspace online on A' });
  }, 180_000);

  afterEach(async () => {
    for (const peer of peers.splice(0)) peer.close();
    for (const gateway of gateways.splice(0)) {
      if (gateway.process.signalCode === null) gateway.process.kill('SIGCONT');
      await gateway.kill();
    }
    await database?.drop();
  });

  it("answers a browser's request routed to a killed replica with WORKSPACE_OFFLINE, and reports the workspace offline", async () => {
    const session = await sessionOnA();
    await roundTrip(session);
    // The project's browser library on A as well: what an application sees.
    const client = new RelayClient({
      descriptor: async () => ({
        connectUrl: `${replicaA.wsUrl}/v1/browser?ticket=${encodeURIComponent(await ticketFrom(replicaA, workspaceId, 'user-2', ORIGIN))}`,
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      }),
      createSocket: (url) => new WebSocket(url, { origin: ORIGIN }),
      allowInsecureLoopback: true,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();

      await replicaB.kill();
      session.send(frames.request(workspaceId));
      const inFlight = client.threads.list().then(
        () => undefined,
        (error: unknown) => error,
      );

      const [error] = await session.waitFor((frame) => frame.type === 'session.error', 'session.error at the browser');
      expect(error).toEqual({ type: 'session.error', code: 'WORKSPACE_OFFLINE', retryable: true });
      expect(await session.closed).toBe(4012);
      // The library's query fails as lost (retryable), not as timed out after its 30 s.
      const failure = await inFlight;
      expect(failure).toBeInstanceOf(RelayClientError);
      expect(failure).toMatchObject({ code: 'TRANSPORT_ERROR' });

      expect(await statusFrom(replicaA, workspaceId)).toEqual({ status: 'offline', deviceId: '' });
      const again = await sessionOnA();
      expect(again.received[0]).toMatchObject({ type: 'session.ready', workspaceStatus: 'offline' });
      // Reconnected, the library knows the workspace is offline: a new request fails at once with WORKSPACE_OFFLINE.
      await waitUntil(() => client.state === 'ready' && client.workspaceStatus === 'offline', { what: 'the library reconnected to an offline workspace' });
      await expect(client.threads.list()).rejects.toMatchObject({ code: 'WORKSPACE_OFFLINE' });
    } finally {
      client.close();
    }
  }, 240_000);

  it('takes back the Companion of a replica that was only stopped: online again everywhere, requests reach it', async () => {
    const session = await sessionOnA();
    await roundTrip(session);

    replicaB.process.kill('SIGSTOP');
    session.send(frames.request(workspaceId));
    await session.waitFor((frame) => frame.type === 'session.error' && frame['code'] === 'WORKSPACE_OFFLINE', 'WORKSPACE_OFFLINE at the browser');
    expect(await statusFrom(replicaA, workspaceId)).toEqual({ status: 'offline', deviceId: '' });

    // B runs again: it hears that its live Companion was reported unreachable and records it again.
    replicaB.process.kill('SIGCONT');
    await waitUntil(async () => (await statusFrom(replicaA, workspaceId)).status === 'online', { what: 'the workspace online again on A', timeoutMs: 90_000 });
    const again = await sessionOnA();
    if (again.received[0]?.['workspaceStatus'] !== 'online') {
      await again.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'online', 'online at the new session');
    }
    await roundTrip(again);
  }, 240_000);
});
