/**
 * The bus between replicas is input, not trust: two real gateway processes on one Postgres server with the
 * local bus over it (distributed mode without Kafka), a Companion on replica B, browsers on A and B.
 *
 * - A requestId that a session on one replica awaits cannot be taken over from the other replica: the
 *   request is dropped with REQUEST_ID_IN_USE at the Companion's replica, as on one replica.
 * - A record written onto the topics by something other than a well-behaved replica (a hostile or buggy
 *   replica, a poisoned topic; here the test's own bus client) is checked again before anything of it
 *   reaches a peer: an invalid frame in it never reaches a browser or the Companion.
 *
 * The device is enrolled with a pairing code and tickets come from CreateBrowserSession through replica A.
 */
import { randomUUID } from 'node:crypto';

import { LOCAL_BUS_MIGRATIONS, type EventBus } from '@trustmesh/platform-bus';
import { openTestBus } from '@trustmesh/platform-bus/testing';
import { deployMigrations, openDatabase, type Database } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { createEnvelope, uuidv7 } from '@trustmesh/platform-events';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { waitUntil } from '@trustmesh/platform-testing';
import { wireError } from '@trustmesh/relay-protocol';

import { COMPANION_FRAME_ROUTED, COMPANION_INBOUND_TOPIC, FRAMES_SEQUENCED, WORKSPACE_FRAMES_TOPIC } from '../../src/data-plane/frames-bus.records';
import { RELAY_GATEWAY_MIGRATIONS } from '../../src/persistence/relay-gateway.migrations';
import { call } from '../support/gateway.fixture';
import { frames } from './support/frames';
import { childAuth, enrollThrough, startGatewayChild, type GatewayChild } from './support/gateway.child';
import { browser, companion, type TestPeer } from './support/peers';

const ORIGIN = 'https://app.example';
const auth = childAuth;
/** Requests a session may have awaiting responses: small, so a route that is never given back shows. */
const PENDING_PER_SESSION = 4;

const replicas: GatewayChild[] = [];
const peers: TestPeer[] = [];
let database: TestPostgresDatabase;
let handle: Database;
let bus: EventBus;
let replicaA: GatewayChild;
let replicaB: GatewayChild;
let workspaceId: string;
let device: { deviceId: string; deviceCredential: string };
let companionPeer: TestPeer;

/** A replica process (`gateway.child.ts`) in server mode on the test's database and the local bus over it. */
async function startReplica(replicaId: string): Promise<GatewayChild> {
  const replica = await startGatewayChild({
    DATABASE_URL: database.url,
    TRUSTMESH_BUS: 'local',
    RELAY_REPLICA_ID: replicaId,
    RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
    RELAY_FRAMES_PUBLISH_LINGER_MS: '2',
    RELAY_FIRST_ACK_TIMEOUT_MS: '60000',
    RELAY_MAX_PENDING_REQUESTS_PER_SESSION: String(PENDING_PER_SESSION),
  });
  replicas.push(replica);
  return replica;
}

async function ticket(): Promise<string> {
  const { descriptor } = await call(
    replicaA.client,
    replicaA.client.createBrowserSession,
    { workspaceId, origin: ORIGIN, acceptedWireVersions: ['1.2', '1.1'], userId: 'user-1' },
    auth,
  );
  return new URL(descriptor!.connectUrl).searchParams.get('ticket')!;
}

/** A browser session on `replica`, online (it learns of the Companion on B from the directory) and past its first ACK. */
async function openSession(replica: GatewayChild, cursor = -1): Promise<TestPeer> {
  const session = await browser(replica.wsUrl, await ticket(), ORIGIN);
  peers.push(session);
  if (session.received[0]?.['workspaceStatus'] !== 'online') {
    await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'online', 'online');
  }
  session.send(frames.ack(workspaceId, cursor));
  return session;
}

/** A request from `session`, seen at the Companion: the requests sent before it on the same path have arrived too. */
async function requestSeen(session: TestPeer): Promise<void> {
  const marker = frames.request(workspaceId);
  session.send(marker);
  await companionPeer.waitFor((frame) => frame['requestId'] === marker.requestId, 'the marker request at the Companion');
}

beforeAll(async () => {
  database = await createTestPostgresDatabase('relay-gateway-data-plane-replicas-bus');
  await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
  [replicaA, replicaB] = await Promise.all([startReplica('replica-a'), startReplica('replica-b')]);
  handle = await openDatabase({ mode: 'server', url: database.url });
  bus = await openTestBus('local', { database: handle, databaseConfig: { mode: 'server', url: database.url } });
  // Enrolled through replica A (gRPC CreateWorkspace and CreatePairingCode, then the redeem endpoint).
  const enrolled = await enrollThrough(replicaA);
  workspaceId = enrolled.workspaceId;
  device = { deviceId: enrolled.deviceId, deviceCredential: enrolled.credential };
  await waitUntil(
    async () => (await call(replicaB.client, replicaB.client.listDevices, { workspaceId, pageSize: 0, pageToken: '' }, auth)).devices.length === 1,
    { what: 'the device in the read model on replica B', timeoutMs: 120_000, intervalMs: 250 },
  );
  companionPeer = await companion(replicaB.wsUrl, frames.deviceConnect(device.deviceId, device.deviceCredential));
  peers.push(companionPeer);
}, 180_000);

afterAll(async () => {
  for (const peer of peers) peer.close();
  await bus?.close();
  await handle?.close();
  await Promise.all(replicas.map((replica) => replica.stop()));
  await database?.drop();
});

it('drops a request from replica A whose requestId a session on replica B awaits (REQUEST_ID_IN_USE), as on one replica', async () => {
  const onB = await openSession(replicaB);
  const onA = await openSession(replicaA);
  const requestId = randomUUID();
  const original = frames.request(workspaceId, 'thread.list', { limit: 10 }, requestId);
  onB.send(original);
  await companionPeer.waitFor((frame) => frame['requestId'] === requestId, 'the original request at the Companion');

  // The same requestId from another session, on the other replica: its response would go to B's session.
  onA.send(frames.request(workspaceId, 'thread.list', { limit: 99 }, requestId));
  await requestSeen(onA);
  expect(companionPeer.received.filter((frame) => frame['requestId'] === requestId)).toEqual([original]);

  companionPeer.send(frames.response(workspaceId, requestId));
  await onB.waitFor((frame) => frame.type === 'runtime.response' && frame['requestId'] === requestId, 'the response at the session that asked first');
  expect(onA.received.filter((frame) => frame['requestId'] === requestId)).toEqual([]);
});

it('answers a session on replica A COMPANION_ERROR for a result that fails its schema at replica B; the result never crosses', async () => {
  const onA = await openSession(replicaA);
  const sentinel = `relay-security-sentinel-${randomUUID()}`;
  const request = frames.request(workspaceId, 'thread.list', { limit: 10 });
  onA.send(request);
  await companionPeer.waitFor((frame) => frame['requestId'] === request.requestId, 'the request at the Companion');
  companionPeer.send(frames.response(workspaceId, request.requestId, { items: [], nextCursor: null, secret: sentinel }));
  const [response] = await onA.waitFor((frame) => frame['requestId'] === request.requestId, 'the answer on replica A');
  expect(response).toEqual({ type: 'runtime.response', requestId: request.requestId, workspaceId, error: wireError('COMPANION_ERROR') });
  expect(onA.raw.join('\n')).not.toContain(sentinel);
});

it('gives a session on replica A its pending-request budget back when the answers come from replica B', async () => {
  const onA = await openSession(replicaA);
  for (let index = 0; index < PENDING_PER_SESSION * 2; index += 1) {
    const request = frames.request(workspaceId);
    onA.send(request);
    await companionPeer.waitFor((frame) => frame['requestId'] === request.requestId, `request ${index} at the Companion`);
    companionPeer.send(frames.response(workspaceId, request.requestId));
    await onA.waitFor((frame) => frame['requestId'] === request.requestId, `response ${index} on replica A`);
  }
  expect(onA.ofType('session.error')).toEqual([]);
});

it('checks a sequenced record again: an invalid frame written onto the frames topic never reaches a browser', async () => {
  const onA = await openSession(replicaA);
  const sentinel = `relay-security-sentinel-${randomUUID()}`;
  const leaky = frames.event(workspaceId, 0);
  (leaky.event.event as Record<string, unknown>)['secret'] = sentinel;
  const valid = frames.event(workspaceId, 1, 'after-the-poison');
  await bus.publish(WORKSPACE_FRAMES_TOPIC, [
    createEnvelope(
      {
        eventType: FRAMES_SEQUENCED,
        data: {
          origin: 'hostile-replica',
          epoch: uuidv7(Date.now()),
          items: [
            { relaySequence: 0, text: JSON.stringify(leaky), wire: '1.2', at: Date.now() },
            { relaySequence: 1, text: JSON.stringify(valid), wire: '1.2', at: Date.now() },
          ],
        },
      },
      { streamId: workspaceId, streamVersion: 1, producer: 'hostile@test' },
    ),
  ]);
  await onA.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === 1, 'the valid frame of the record');
  expect(onA.raw.join('\n')).not.toContain(sentinel);
  expect(onA.ofType('runtime.event')).toEqual([valid]);
});

it('checks a routed request again: an invalid frame written onto the inbound topic never reaches the Companion', async () => {
  const sentinel = `relay-security-sentinel-${randomUUID()}`;
  const leaky = { ...frames.request(workspaceId), secret: sentinel };
  const marker = frames.request(workspaceId);
  const record = (text: string, requestId: string) =>
    createEnvelope(
      {
        eventType: COMPANION_FRAME_ROUTED,
        data: { origin: 'hostile-replica', sessionId: randomUUID(), kind: 'request', requestId, method: 'thread.list', candidate: null, text },
      },
      { streamId: workspaceId, streamVersion: 1, producer: 'hostile@test' },
    );
  await bus.publish(COMPANION_INBOUND_TOPIC, [record(JSON.stringify(leaky), leaky.requestId), record(JSON.stringify(marker), marker.requestId)]);
  await companionPeer.waitFor((frame) => frame['requestId'] === marker.requestId, 'the valid routed request');
  expect(companionPeer.raw.join('\n')).not.toContain(sentinel);
});
