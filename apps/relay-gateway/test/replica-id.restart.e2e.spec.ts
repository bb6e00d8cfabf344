/**
 * What apps/relay-gateway/README.md ("Distributed mode") promises for RELAY_REPLICA_ID on Kubernetes: a
 * replica killed with its Companion's socket open (SIGKILL: nothing reported) leaves that presence behind;
 * its successor with the same replica id (a restarted container, a StatefulSet pod) ends it before serving,
 * without waiting for the liveness sweep (RELAY_REPLICA_TIMEOUT_SECONDS is set far beyond the test). Real
 * processes on Postgres with the local bus; migrations deployed first.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

import * as grpc from '@grpc/grpc-js';
import { relayControlV1GrpcJs } from '@trustmesh/contracts';
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTempDataDir, createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { startServiceChild, waitUntil, type ServiceChild } from '@trustmesh/platform-testing';

import { RELAY_GATEWAY_MIGRATIONS } from '../src/persistence/relay-gateway.migrations';
import { frames } from './data-plane/support/frames';
import { connect, type TestPeer } from './data-plane/support/peers';
import { bearer, call } from './support/gateway.fixture';

const ROOT = join(__dirname, '..', '..', '..');
const { WorkspaceConnectivity } = relayControlV1GrpcJs;

interface Replica {
  child: ServiceChild<{ httpUrl: string; grpcAddress: string }>;
  httpUrl: string;
  client: relayControlV1GrpcJs.RelayControlClient;
}

describe('a replica restarted with the same RELAY_REPLICA_ID (Postgres, local bus)', () => {
  let database: TestPostgresDatabase;
  let tlsDir: { dataDir: string; remove(): Promise<void> };
  const credential = `tmsc_${randomBytes(32).toString('base64url')}`;
  const auth = bearer(credential);
  const running: Replica[] = [];
  const peers: TestPeer[] = [];

  beforeAll(async () => {
    database = await createTestPostgresDatabase('relay-gateway-replica-restart');
    tlsDir = await createTempDataDir('relay-gateway-replica-restart-tls');
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) peer.close();
    for (const replica of running) {
      replica.client.close();
      await replica.child.kill();
    }
    await database?.drop();
    await tlsDir?.remove();
  }, 60_000);

  async function start(replicaId: string): Promise<Replica> {
    const child = await startServiceChild<{ httpUrl: string; grpcAddress: string }>(join(__dirname, 'data-plane', 'support', 'gateway.process.ts'), {
      workspaceRoot: ROOT,
      env: {
        DATABASE_URL: database.url,
        TRUSTMESH_BUS: 'local',
        RELAY_REPLICA_ID: replicaId,
        // Far beyond the test: only the start-up release can end the predecessor's presence in time.
        RELAY_REPLICA_TIMEOUT_SECONDS: '3600',
        RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
        RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(credential).digest('hex'),
        RELAY_TLS: 'self-signed',
        RELAY_TLS_SELF_SIGNED_DIR: tlsDir.dataDir,
        RELAY_OPERATOR_PORT: '0',
        RELAY_HTTP_HOST: '127.0.0.1',
        RELAY_HTTP_PORT: '0',
        RELAY_GRPC_HOST: '127.0.0.1',
        RELAY_GRPC_PORT: '0',
        LOG_LEVEL: 'warn',
      },
    });
    const ca = readFileSync(join(tlsDir.dataDir, 'cert.pem'));
    const replica = { child, httpUrl: child.ready.httpUrl, client: new relayControlV1GrpcJs.RelayControlClient(child.ready.grpcAddress, grpc.credentials.createSsl(ca)) };
    running.push(replica);
    return replica;
  }

  const connectivity = async (replica: Replica, workspaceId: string) =>
    (await call(replica.client, replica.client.getWorkspaceStatus, { workspaceId }, auth)).status?.connectivity;

  it('ends the presence its killed predecessor left before it serves', async () => {
    const first = await start('relay-gateway-0');
    const ca = readFileSync(join(tlsDir.dataDir, 'cert.pem'));
    const { workspace } = await call(first.client, first.client.createWorkspace, { requestId: randomUUID(), ownerUserId: 'u', displayName: 'restart', endToEndEncrypted: false }, auth);
    const workspaceId = workspace!.workspaceId;
    const { pairingCode } = await call(first.client, first.client.createPairingCode, { workspaceId, ttlSeconds: 0, requestedByUserId: 'u' }, auth);
    const redeemed = await new Promise<{ deviceId: string; deviceCredential: string }>((resolve, reject) => {
      const body = JSON.stringify({ code: pairingCode });
      const url = new URL('/v1/device-enrollments/redeem', first.httpUrl);
      const request = httpsRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', ca, servername: 'localhost', headers: { 'content-type': 'application/json' } },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          response.on('end', () => (response.statusCode === 200 ? resolve(JSON.parse(text) as { deviceId: string; deviceCredential: string }) : reject(new Error(`redeem ${response.statusCode}: ${text}`))));
        },
      );
      request.on('error', reject);
      request.end(body);
    });

    const peer = connect(`${first.httpUrl.replace(/^https:/, 'wss:')}/v1/companion`, { ca });
    peers.push(peer);
    await peer.opened;
    peer.send(frames.deviceConnect(redeemed.deviceId, redeemed.deviceCredential));
    await waitUntil(async () => (await connectivity(first, workspaceId)) === WorkspaceConnectivity.ONLINE, { timeoutMs: 60_000, what: 'the workspace to be online' });

    // A crash: the replica reports nothing.
    await first.child.kill();
    first.client.close();

    const successor = await start('relay-gateway-0');
    // Ready means the release is done: the very first status read is offline.
    expect(await connectivity(successor, workspaceId)).toBe(WorkspaceConnectivity.OFFLINE);
  }, 240_000);
});
