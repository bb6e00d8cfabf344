/**
 * Two real gateway replicas (`startRelayGateway`, control plane and data plane) as two processes on one
 * Postgres server, once with the local bus over it (distributed mode without Kafka) and once with the Kafka
 * adapter on librdkafka's mock cluster: a browser on replica A and
 * its Companion on replica B still work, in order, with nothing lost and nothing delivered twice. Requests
 * and ACKs cross through relay.companion-inbound.v1, responses and sequenced frames through
 * relay.workspace-frames.v1, and replica A learns the Companion is online from the control plane's
 * presence. The device is enrolled with a pairing code and the tickets come from CreateBrowserSession, as a
 * user's services would do it.
 *
 * On the mock cluster a second process joining a shared group can get an answer kafkajs does not retry, so
 * its consumer crashes for good: the Kafka adapter then recreates the consumer, and the replica starts.
 */
import { randomUUID } from 'node:crypto';

import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { RELAY_GATEWAY_MIGRATIONS } from '../../src/persistence/relay-gateway.migrations';
import { call } from '../support/gateway.fixture';
import { frames } from './support/frames';
import { childAuth, enrollThrough, replicaEnv, startGatewayChild, ticketFrom, type GatewayChild } from './support/gateway.child';
import { browser, companion, type TestPeer } from './support/peers';

const ORIGIN = 'https://app.example';
const BUS_KINDS = ['local', 'kafka'] as const;

describe.each(BUS_KINDS)('two gateway processes on the %s bus', (bus) => {
  const replicas: GatewayChild[] = [];
  const peers: TestPeer[] = [];
  let database: TestPostgresDatabase;
  let replicaA: GatewayChild;
  let replicaB: GatewayChild;
  let workspaceId: string;
  let device: { deviceId: string; deviceCredential: string };
  let tickets: string[];

  /** A replica process (`gateway.child.ts`) in server mode on the test's database and bus. */
  async function startReplica(replicaId: string, prefix: string): Promise<GatewayChild> {
    const replica = await startGatewayChild(replicaEnv({ databaseUrl: database.url, bus, ...(kafka ? { kafkaBrokers: kafka.brokers } : {}), topicPrefix: prefix }, replicaId));
    replicas.push(replica);
    return replica;
  }

  afterAll(async () => {
    for (const peer of peers) peer.close();
    // SIGTERM, and SIGKILL after 30 s (the cluster is still up: the replicas leave their groups at once).
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database?.drop();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = bus === 'kafka' ? useKafkaCluster() : undefined;
  beforeAll(async () => {
    database = await createTestPostgresDatabase('relay-gateway-data-plane-replicas');
    // As `trustmesh db migrate deploy` would, before the replicas start.
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
    const prefix = `t${randomUUID().slice(0, 8)}.`;
    [replicaA, replicaB] = await Promise.all([startReplica('replica-a', prefix), startReplica('replica-b', prefix)]);
    // Enrolled through replica A (gRPC + the redeem endpoint); tickets issued by A, used on either replica.
    const enrolled = await enrollThrough(replicaA);
    workspaceId = enrolled.workspaceId;
    device = { deviceId: enrolled.deviceId, deviceCredential: enrolled.credential };
    // The read model's consumer group (shared by both replicas) settles before anything is timed: on the Kafka
    // mock a member can crash mid-join and the group then waits one session timeout (30 s) to rebalance.
    await waitUntil(
      async () => (await call(replicaB.client, replicaB.client.listDevices, { workspaceId, pageSize: 0, pageToken: '' }, childAuth)).devices.length === 1,
      { what: 'the device in the read model on replica B', timeoutMs: 120_000, intervalMs: 250 },
    );
    tickets = [await ticketFrom(replicaA, workspaceId, 'user-1', ORIGIN), await ticketFrom(replicaA, workspaceId, 'user-1', ORIGIN)];
  }, 180_000);

  it('serves a browser on replica A and its Companion on replica B, in order, nothing lost or doubled', async () => {
    const peer = await companion(replicaB.wsUrl, frames.deviceConnect(device.deviceId, device.deviceCredential));
    peers.push(peer);
    const session = await browser(replicaA.wsUrl, tickets[0] as string, ORIGIN);
    peers.push(session);
    // Replica A learns that the Companion (on B) is online from the control plane's cross-replica presence.
    if (session.received[0]?.['workspaceStatus'] !== 'online') {
      await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'online', 'online');
    }
    session.send(frames.ack(workspaceId, -1));
    const [ack] = await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK at the Companion');
    expect(ack).toEqual(frames.ack(workspaceId, -1));

    // Requests cross A → B, responses B → A, to the requester only.
    const requests = [0, 1, 2].map(() => frames.request(workspaceId));
    for (const request of requests) session.send(request);
    const received = await peer.waitFor((frame) => frame.type === 'runtime.request', 'the requests', 3);
    expect(received).toEqual(requests);
    for (const request of requests) peer.send(frames.response(workspaceId, request.requestId));

    // Sequenced frames cross B → A in order, interleaved with the responses.
    const sent = Array.from({ length: 50 }, (_, sequence) => frames.event(workspaceId, sequence));
    for (const frame of sent) peer.send(frame);
    const events = await session.waitFor((frame) => frame.type === 'runtime.event', 'the events', 50);
    const responses = await session.waitFor((frame) => frame.type === 'runtime.response', 'the responses', 3);
    expect(events).toEqual(sent);
    expect(responses.map((frame) => frame['requestId'])).toEqual(requests.map((request) => request.requestId));

    // A second browser on B (the Companion's replica, the in-process fast path) sees the same stream once.
    const local = await browser(replicaB.wsUrl, tickets[1] as string, ORIGIN);
    peers.push(local);
    local.send(frames.ack(workspaceId, 49));
    session.send(frames.ack(workspaceId, 49));
    peer.send(frames.event(workspaceId, 50));
    await local.waitFor((frame) => frame.type === 'runtime.event', 'the live event on B');
    await session.waitFor((frame) => frame.type === 'runtime.event', 'the live event on A', 51);
    // Give both paths every chance to deliver twice, then check nobody got a frame twice.
    const marker = frames.request(workspaceId);
    session.send(marker);
    await peer.waitFor((frame) => frame.type === 'runtime.request', 'the marker request', 4);
    peer.send(frames.response(workspaceId, marker.requestId));
    await session.waitFor((frame) => frame.type === 'runtime.response', 'the marker response', 4);
    const sequences = session.ofType('runtime.event').map((frame) => frame['relaySequence']);
    expect(sequences).toEqual(Array.from({ length: 51 }, (_, sequence) => sequence));
    expect(local.ofType('runtime.event').map((frame) => frame['relaySequence'])).toEqual([50]);
    await waitUntil(() => peer.ofType('runtime.ack').length >= 3, { what: 'the ACKs from both replicas' });
  });
});
