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
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import * as grpc from '@grpc/grpc-js';
import { relayControlV1GrpcJs } from '@trustmesh/contracts';
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { RELAY_GATEWAY_MIGRATIONS } from '../../src/persistence/relay-gateway.migrations';
import { bearer, call, type RelayControlClient } from '../support/gateway.fixture';
import { frames } from './support/frames';
import { browser, companion, type TestPeer } from './support/peers';

const workspaceRoot = join(__dirname, '../../../..');
const ORIGIN = 'https://app.example';
const credential = `tmsc_${randomBytes(32).toString('base64url')}`;
const auth = bearer(credential);
const BUS_KINDS = ['local', 'kafka'] as const;

describe.each(BUS_KINDS)('two gateway processes on the %s bus', (bus) => {
  const kafka = bus === 'kafka' ? useKafkaCluster() : undefined;
  const children: ChildProcess[] = [];
  const clients: RelayControlClient[] = [];
  const peers: TestPeer[] = [];
  let database: TestPostgresDatabase;
  let replicaA: Replica;
  let replicaB: Replica;
  let workspaceId: string;
  let device: { deviceId: string; deviceCredential: string };
  let tickets: string[];

  interface Replica {
    wsUrl: string;
    httpUrl: string;
    client: RelayControlClient;
  }

  function startReplica(replicaId: string, prefix: string): Promise<Replica> {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'support', 'gateway.process.ts')], {
      cwd: workspaceRoot,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: join(workspaceRoot, 'tsconfig.base.json'),
        DATABASE_URL: database.url,
        TRUSTMESH_BUS: bus,
        ...(kafka ? { KAFKA_BROKERS: kafka.brokers.join(',') } : {}),
        TRUSTMESH_TOPIC_PREFIX: prefix,
        RELAY_REPLICA_ID: replicaId,
        RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
        RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(credential).digest('hex'),
        // Server mode requires TLS; these replicas stand for ones behind a TLS-terminating proxy (plain, loopback).
        RELAY_TLS: 'terminated-by-proxy',
        RELAY_HTTP_PORT: '0',
        RELAY_GRPC_PORT: '0',
        RELAY_OPERATOR_PORT: '0',
        LOG_LEVEL: 'warn',
        RELAY_FRAMES_PUBLISH_LINGER_MS: '2',
        RELAY_FIRST_ACK_TIMEOUT_MS: '60000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
      if (process.env['DEBUG_SHUTDOWN']) process.stderr.write(chunk);
    });
    return new Promise((resolve, reject) => {
      let partial = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.startsWith('{"event"')) continue;
          const message = JSON.parse(line) as { event: string; httpUrl: string; grpcAddress: string };
          if (message.event !== 'ready') continue;
          const client = new relayControlV1GrpcJs.RelayControlClient(message.grpcAddress, grpc.credentials.createInsecure());
          clients.push(client);
          resolve({ wsUrl: message.httpUrl.replace(/^http:/, 'ws:'), httpUrl: message.httpUrl, client });
        }
      });
      child.once('exit', (code) => reject(new Error(`replica ${replicaId} exited with ${code}: ${stderr.slice(-2000)}`)));
    });
  }

  afterAll(async () => {
    for (const peer of peers) peer.close();
    for (const client of clients) client.close();
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            // A replica that cannot leave its groups in time is not what this file tests: stop it hard.
            setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
          }),
      ),
    );
    await database?.drop();
  });

  beforeAll(async () => {
    database = await createTestPostgresDatabase('relay-gateway-data-plane-replicas');
    // As `trustmesh db migrate deploy` would, before the replicas start.
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
    const prefix = `t${randomUUID().slice(0, 8)}.`;
    [replicaA, replicaB] = await Promise.all([startReplica('replica-a', prefix), startReplica('replica-b', prefix)]);
    // Enrolled through replica A (gRPC + the redeem endpoint); tickets issued by A, used on either replica.
    const { workspace } = await call(
      replicaA.client,
      replicaA.client.createWorkspace,
      { requestId: randomUUID(), ownerUserId: 'user-1', displayName: 'Two replicas', endToEndEncrypted: false },
      auth,
    );
    workspaceId = workspace!.workspaceId;
    const { pairingCode } = await call(replicaA.client, replicaA.client.createPairingCode, { workspaceId, ttlSeconds: 0, requestedByUserId: 'user-1' }, auth);
    const redeemed = await fetch(`${replicaA.httpUrl}/v1/device-enrollments/redeem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: pairingCode }),
    });
    expect(redeemed.status).toBe(200);
    device = (await redeemed.json()) as { deviceId: string; deviceCredential: string };
    // The read model's consumer group (shared by both replicas) settles before anything is timed: on the Kafka
    // mock a member can crash mid-join and the group then waits one session timeout (30 s) to rebalance.
    await waitUntil(
      async () => (await call(replicaB.client, replicaB.client.listDevices, { workspaceId, pageSize: 0, pageToken: '' }, auth)).devices.length === 1,
      { what: 'the device in the read model on replica B', timeoutMs: 120_000, intervalMs: 250 },
    );
    tickets = [];
    for (let index = 0; index < 2; index += 1) {
      const { descriptor } = await call(
        replicaA.client,
        replicaA.client.createBrowserSession,
        { workspaceId, origin: ORIGIN, acceptedWireVersions: ['1.2', '1.1'], userId: 'user-1' },
        auth,
      );
      tickets.push(new URL(descriptor!.connectUrl).searchParams.get('ticket')!);
    }
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
