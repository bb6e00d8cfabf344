/**
 * Two gateway replicas on one Postgres server, with the local bus over it and with Kafka (librdkafka's mock
 * cluster), as distributed mode runs them:
 * single use holds across replicas (one redeem and one ticket upgrade win), a revocation taken by one
 * replica closes the socket the other holds before RevokeDevice returns, and a watch on one replica sees
 * presence reported by the other. Migrations are deployed first, as `trustmesh db migrate deploy` would.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';

import type * as grpc from '@grpc/grpc-js';
import { relayControlV1GrpcJs } from '@trustmesh/contracts';
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTempDataDir, createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { MOCK_CLUSTER_SESSION, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { RELAY_DIRECTORY, type RelayDirectory } from '../src/control/relay-directory.port';
import { ReplicaLiveness } from '../src/control/replica-liveness';
import { RELAY_GATEWAY_MIGRATIONS } from '../src/persistence/relay-gateway.migrations';
import type { RelayGatewayHandle } from '../src/relay-gateway.bootstrap';
import { connect } from './data-plane/support/peers';
import { bearer, call, controlClient, redeem, startTestGateway, statusOf, type RelayControlClient } from './support/gateway.fixture';

const ORIGIN = 'https://app.trustmesh.test';

const kafka = useKafkaCluster();

describe.each(['local', 'kafka'] as const)('relay gateway control plane across two replicas (Postgres, %s bus)', (bus) => {
  let database: TestPostgresDatabase;
  let tlsDir: { dataDir: string; remove(): Promise<void> };
  const replicas: Array<{ gateway: RelayGatewayHandle; client: RelayControlClient; directory: RelayDirectory }> = [];
  const credential = `tmsc_${randomBytes(32).toString('base64url')}`;
  let auth: grpc.Metadata;

  beforeAll(async () => {
    database = await createTestPostgresDatabase('relay-gateway-replicas');
    tlsDir = await createTempDataDir('relay-gateway-tls');
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
    const topicPrefix = `cp${randomBytes(4).toString('hex')}.`;
    // Both at once: on Kafka each member joining a shared consumer group (the projection's) makes the group
    // rebalance, and two joins at once cost one rebalance instead of two.
    const started = await Promise.all(
      ['replica-a', 'replica-b'].map((name) =>
        startTestGateway({
          DATABASE_URL: database.url,
          RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
          RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(credential).digest('hex'),
          RELAY_TLS: 'self-signed',
          RELAY_TLS_SELF_SIGNED_DIR: join(tlsDir.dataDir, name),
          RELAY_HTTP_HOST: '127.0.0.1',
          RELAY_GRPC_HOST: '127.0.0.1',
          RELAY_REPLICA_ID: name,
          TRUSTMESH_BUS: bus,
          ...(bus === 'kafka' ? { KAFKA_BROKERS: kafka.brokers.join(','), ...MOCK_CLUSTER_SESSION, TRUSTMESH_TOPIC_PREFIX: topicPrefix } : {}),
        }),
      ),
    );
    for (const { gateway } of started) {
      replicas.push({ gateway, client: controlClient(gateway), directory: gateway.app.get<RelayDirectory>(RELAY_DIRECTORY) });
    }
    auth = bearer(credential);
    // The read model's consumer group settles before anything is timed. On the Kafka mock a member can crash
    // mid-join (kafkajs rejects a SyncGroup answer); the bus recreates it, and the group then waits one session
    // timeout (30 s) for the member kafkajs abandoned before it rebalances.
    const canary = await createWorkspace();
    await redeem(a().gateway, await issueCode(canary.workspaceId));
    await waitUntil(
      async () => (await call(b().client, b().client.listDevices, { workspaceId: canary.workspaceId, pageSize: 0, pageToken: '' }, auth)).devices.length === 1,
      { what: 'the read model to be fed on both replicas', timeoutMs: 120_000, intervalMs: 250 },
    );
  }, 180_000);

  afterAll(async () => {
    for (const replica of replicas) {
      replica.client.close();
      await replica.gateway.close();
    }
    await database?.drop();
    await tlsDir?.remove();
  });

  const a = () => replicas[0]!;
  const b = () => replicas[1]!;
  const createWorkspace = async (replica = a()) =>
    (await call(replica.client, replica.client.createWorkspace, { requestId: crypto.randomUUID(), ownerUserId: 'u', displayName: 'w', endToEndEncrypted: false }, auth))
      .workspace!;
  const issueCode = async (workspaceId: string, replica = a()) =>
    (await call(replica.client, replica.client.createPairingCode, { workspaceId, ttlSeconds: 0, requestedByUserId: 'u' }, auth)).pairingCode;

  it('needs no development credential in server mode and refuses anything else', async () => {
    expect(a().gateway.developmentServiceCredential).toBeNull();
    expect(await statusOf(call(a().client, a().client.getWorkspaceStatus, { workspaceId: crypto.randomUUID() }, bearer('tmsc_other')))).toBe('UNAUTHENTICATED');
  });

  it('lets one of two redeems of one code on two replicas win', async () => {
    const workspace = await createWorkspace();
    const code = await issueCode(workspace.workspaceId);
    const replies = await Promise.all([redeem(a().gateway, code), redeem(b().gateway, code)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
    // The read model, filled by whichever replica consumes the partition, serves both.
    await waitUntil(
      async () => (await call(b().client, b().client.listDevices, { workspaceId: workspace.workspaceId, pageSize: 0, pageToken: '' }, auth)).devices.length === 1,
      { what: 'the device in the read model' },
    );
  });

  it('lets one of two upgrades with one ticket on two replicas win', async () => {
    const workspace = await createWorkspace(b());
    const { descriptor } = await call(
      a().client,
      a().client.createBrowserSession,
      { workspaceId: workspace.workspaceId, origin: ORIGIN, acceptedWireVersions: ['1.2', '1.1'], userId: 'u' },
      auth,
    );
    expect(descriptor!.connectUrl.startsWith('wss://relay.trustmesh.test/v1/browser?ticket=tmbt_')).toBe(true);
    const ticket = new URL(descriptor!.connectUrl).searchParams.get('ticket')!;
    const verdicts = await Promise.all([a().directory.consumeBrowserTicket(ticket, ORIGIN), b().directory.consumeBrowserTicket(ticket, ORIGIN)]);
    expect(verdicts.map((verdict) => (verdict.ok ? 'ok' : verdict.code)).sort()).toEqual(['SESSION_TICKET_ALREADY_USED', 'ok']);
  });

  it('closes a Companion held by the other replica before RevokeDevice returns, and watches see it', async () => {
    const workspace = await createWorkspace();
    const code = await issueCode(workspace.workspaceId);
    const device = (await redeem(b().gateway, code)).json as { deviceId: string; deviceCredential: string };
    expect(await b().directory.authenticateDevice(device.deviceId, device.deviceCredential)).not.toBeNull();

    const statuses: relayControlV1GrpcJs.WorkspaceStatus[] = [];
    const watch = a().client.watchWorkspaceStatus({ workspaceId: workspace.workspaceId }, auth);
    watch.on('data', (message: relayControlV1GrpcJs.WatchWorkspaceStatusResponse) => statuses.push(message.status!));
    watch.on('error', () => undefined);
    await waitUntil(() => statuses.length === 1, { what: 'the current status' });

    // Replica B holds the socket, as its data plane would.
    const connectionId = crypto.randomUUID();
    const closedOnB: string[] = [];
    const stop = b().directory.onDeviceRevoked((revocation) => {
      if (revocation.deviceId !== device.deviceId || closedOnB.length > 0) return;
      closedOnB.push(revocation.deviceId);
      void b().directory.companionDisconnected({ connectionId, workspaceId: workspace.workspaceId, deviceId: device.deviceId, reason: 'revoked' });
    });
    await b().directory.companionConnected({ connectionId, workspaceId: workspace.workspaceId, deviceId: device.deviceId, wireVersion: '1.2' });
    await waitUntil(() => statuses.length === 2, { what: 'online, seen on replica A' });
    expect(statuses[1]).toMatchObject({ connectivity: relayControlV1GrpcJs.WorkspaceConnectivity.ONLINE, deviceId: device.deviceId });

    const revoked = await call(a().client, a().client.revokeDevice, { workspaceId: workspace.workspaceId, deviceId: device.deviceId, reason: 'stolen', revokedByUserId: 'admin' }, auth);
    expect(revoked.disconnected).toBe(true);
    expect(closedOnB).toEqual([device.deviceId]);
    expect((await a().directory.getWorkspaceStatus(workspace.workspaceId))?.status).toBe('offline');
    expect(await b().directory.authenticateDevice(device.deviceId, device.deviceCredential)).toBeNull();
    await waitUntil(() => statuses.length === 3, { what: 'offline, seen on replica A' });
    expect(statuses[2]!.connectivity).toBe(relayControlV1GrpcJs.WorkspaceConnectivity.OFFLINE);
    stop();
    watch.cancel();
  });

  it('ends a browser session held by the other replica before EndBrowserSessions returns', async () => {
    const workspace = await createWorkspace();
    const { descriptor } = await call(
      a().client,
      a().client.createBrowserSession,
      { workspaceId: workspace.workspaceId, origin: ORIGIN, acceptedWireVersions: ['1.2', '1.1'], userId: 'person-1' },
      auth,
    );
    const ticket = new URL(descriptor!.connectUrl).searchParams.get('ticket')!;
    // A real browser socket on replica B (wss, verifying B's certificate).
    const peer = connect(`${b().gateway.httpUrl.replace(/^https:/, 'wss:')}/v1/browser?ticket=${encodeURIComponent(ticket)}`, {
      origin: ORIGIN,
      ca: b().gateway.tls!.cert,
    });
    try {
      const [ready] = await peer.waitFor((frame) => frame.type === 'session.ready', 'session.ready on replica B');
      await waitUntil(async () => (await a().directory.getWorkspaceStatus(workspace.workspaceId))?.browserSessionCount === 1, { what: 'the session recorded live' });
      const reply = await call(
        a().client,
        a().client.endBrowserSessions,
        { workspaceId: workspace.workspaceId, sessionId: String(ready!['sessionId']), userId: '', reason: 'device lost', endedByUserId: 'admin' },
        auth,
      );
      expect(reply.endedSessionCount).toBe(1);
      expect(peer.closeCode).toBe(4008);
      expect((await a().directory.getWorkspaceStatus(workspace.workspaceId))?.browserSessionCount).toBe(0);
    } finally {
      peer.close();
    }
  });

  it('refuses on replica B a ticket minted before EndBrowserSessions ended its person on replica A; a later one opens', async () => {
    const workspace = await createWorkspace();
    const mint = async () => {
      const { descriptor } = await call(
        b().client,
        b().client.createBrowserSession,
        { workspaceId: workspace.workspaceId, origin: ORIGIN, acceptedWireVersions: ['1.2', '1.1'], userId: 'person-2' },
        auth,
      );
      return new URL(descriptor!.connectUrl).searchParams.get('ticket')!;
    };
    const upgradeOnB = (ticket: string) =>
      connect(`${b().gateway.httpUrl.replace(/^https:/, 'wss:')}/v1/browser?ticket=${encodeURIComponent(ticket)}`, { origin: ORIGIN, ca: b().gateway.tls!.cert });
    const mintedBefore = await mint();
    const reply = await call(a().client, a().client.endBrowserSessions, { workspaceId: workspace.workspaceId, sessionId: '', userId: 'person-2', reason: 'signed out everywhere', endedByUserId: 'admin' }, auth);
    expect(reply.endedSessionCount).toBe(0);

    const refused = upgradeOnB(mintedBefore);
    await refused.closed;
    expect(refused.refusal).toEqual({ status: 401, body: JSON.stringify({ code: 'SESSION_TICKET_INVALID' }) });
    const later = upgradeOnB(await mint());
    try {
      await later.waitFor((frame) => frame.type === 'session.ready', 'session.ready on replica B');
    } finally {
      later.close();
    }
  });

  it('ends the presence of a replica that stopped renewing its liveness (crashed)', async () => {
    const workspace = await createWorkspace();
    const device = (await redeem(a().gateway, await issueCode(workspace.workspaceId))).json as { deviceId: string };
    const prisma = a().gateway.infrastructure.prisma;
    // What a crashed replica leaves behind: its presence, and a liveness row nobody renews.
    await prisma.relayReplica.create({ data: { replicaId: 'replica-ghost', startedAt: new Date(0), lastSeenAt: new Date(0) } });
    await prisma.relayWorkspacePresence.create({
      data: { workspaceId: workspace.workspaceId, online: true, deviceId: device.deviceId, connectionId: crypto.randomUUID(), replicaId: 'replica-ghost', wireVersion: '1.2', lastWireVersion: '1.2', changedAt: new Date() },
    });
    await prisma.relayLiveBrowserSession.create({ data: { sessionId: crypto.randomUUID(), workspaceId: workspace.workspaceId, replicaId: 'replica-ghost', startedAt: new Date() } });
    expect(await b().directory.getWorkspaceStatus(workspace.workspaceId)).toMatchObject({ status: 'online', browserSessionCount: 1 });
    // Replica A's next sweep (run now instead of waiting for its timer).
    expect(await a().gateway.app.get(ReplicaLiveness).sweep()).toBe(1);
    expect(await b().directory.getWorkspaceStatus(workspace.workspaceId)).toMatchObject({ status: 'offline', browserSessionCount: 0 });
    expect(await prisma.relayReplica.findMany({ where: { replicaId: 'replica-ghost' } })).toEqual([]);
    // Live replicas are never swept.
    expect((await prisma.relayReplica.findMany()).map((row) => row.replicaId).sort()).toEqual(['replica-a', 'replica-b']);
  });

  it('records a stopping replica’s remaining presence as gone, so the others see the workspace offline', async () => {
    const workspace = await createWorkspace();
    const device = (await redeem(a().gateway, await issueCode(workspace.workspaceId))).json as { deviceId: string };
    await b().directory.companionConnected({ connectionId: crypto.randomUUID(), workspaceId: workspace.workspaceId, deviceId: device.deviceId, wireVersion: '1.1' });
    await b().directory.browserSessionStarted({ sessionId: crypto.randomUUID(), workspaceId: workspace.workspaceId, userId: 'u', wireVersion: '1.1' });
    expect(await a().directory.getWorkspaceStatus(workspace.workspaceId)).toMatchObject({ status: 'online', replicaId: 'replica-b', browserSessionCount: 1 });
    await b().gateway.close();
    expect(await a().directory.getWorkspaceStatus(workspace.workspaceId)).toMatchObject({ status: 'offline', browserSessionCount: 0 });
  });
});
