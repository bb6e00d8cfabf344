/**
 * A real gateway as a child process (`gateway.process.ts`: `startRelayGateway`, as `nx serve` runs it) that a
 * test can kill with SIGKILL and start again on the same data: embedded PGlite in a data dir, or a Postgres
 * database (with the local or the Kafka bus) given by the environment. What a user's services do is done the
 * same way here: workspaces and pairing codes over gRPC with a service credential, enrollment over HTTP, tickets
 * from CreateBrowserSession.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

import * as grpc from '@grpc/grpc-js';
import { relayControlV1GrpcJs } from '@trustmesh/contracts';
import { MOCK_CLUSTER_SESSION, startServiceChild } from '@trustmesh/platform-testing';

import { bearer, call, type RelayControlClient } from '../../support/gateway.fixture';

const workspaceRoot = join(__dirname, '../../../../..');
const { WorkspaceConnectivity } = relayControlV1GrpcJs;

/**
 * One service credential for every child of a test file (its digest is in each child's environment); exported
 * for what a user's tools would be given it through (e.g. `RELAY_CONTROL_CREDENTIAL` of the `trustmesh` command).
 */
export const childCredential = `tmsc_${randomBytes(32).toString('base64url')}`;
export const childAuth = bearer(childCredential);

export interface GatewayChild {
  readonly process: ChildProcess;
  /** ws://127.0.0.1:<port> (wss:// when it serves TLS) */
  readonly wsUrl: string;
  readonly httpUrl: string;
  /** RelayControl's gRPC address, 127.0.0.1:<port> (plaintext with TLS off). */
  readonly grpcAddress: string;
  /** The operator port (`/metrics`), http://127.0.0.1:<port>. */
  readonly operatorUrl: string;
  /** The certificate it serves (PEM) for clients to trust, with RELAY_TLS=self-signed or files; null with TLS off. */
  readonly certificate: Buffer | null;
  readonly client: RelayControlClient;
  /** The last lines the child wrote to stderr (for failure messages). */
  stderr(): string;
  /** SIGKILL: no shutdown, nothing flushed. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful shutdown); SIGKILL after 30 s. */
  stop(): Promise<void>;
}

/** Where a replica in server mode runs: the test's Postgres database, its bus and its topic prefix. */
export interface ReplicaPlacement {
  databaseUrl: string;
  bus: 'local' | 'kafka';
  /** The Kafka brokers, when `bus` is `kafka`. */
  kafkaBrokers?: readonly string[];
  topicPrefix: string;
}

/**
 * The environment of one replica of a distributed-mode test: server mode on the placement, a stable replica id,
 * frames published almost at once, and a first-ACK timeout no test step comes near.
 */
export function replicaEnv(placement: ReplicaPlacement, replicaId: string): Record<string, string> {
  return {
    DATABASE_URL: placement.databaseUrl,
    TRUSTMESH_BUS: placement.bus,
    ...(placement.bus === 'kafka' && placement.kafkaBrokers ? { KAFKA_BROKERS: placement.kafkaBrokers.join(','), ...MOCK_CLUSTER_SESSION } : {}),
    TRUSTMESH_TOPIC_PREFIX: placement.topicPrefix,
    RELAY_REPLICA_ID: replicaId,
    RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
    RELAY_FRAMES_PUBLISH_LINGER_MS: '2',
    RELAY_FIRST_ACK_TIMEOUT_MS: '60000',
  };
}

/** Starts a gateway process; `env` adds to (and overrides) the defaults: embedded mode needs TRUSTMESH_DATA_DIR. */
export async function startGatewayChild(env: Record<string, string>): Promise<GatewayChild> {
  const child = await startServiceChild<{ httpUrl: string; grpcAddress: string; operatorUrl: string; certFile: string | null }>(join(__dirname, 'gateway.process.ts'), {
    workspaceRoot,
    env: {
      RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(childCredential).digest('hex'),
      // Server mode (a DATABASE_URL) refuses plaintext listeners unless a proxy terminates TLS, as in these tests.
      RELAY_TLS: env['DATABASE_URL'] ? 'terminated-by-proxy' : 'off',
      RELAY_OPERATOR_PORT: '0',
      RELAY_HTTP_HOST: '127.0.0.1',
      RELAY_HTTP_PORT: '0',
      RELAY_GRPC_HOST: '127.0.0.1',
      RELAY_GRPC_PORT: '0',
      RELAY_ENROLLMENT_RATE_LIMIT: '100000',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  const { httpUrl, grpcAddress, operatorUrl, certFile } = child.ready;
  const client = new relayControlV1GrpcJs.RelayControlClient(grpcAddress, grpc.credentials.createInsecure());
  return {
    process: child.process,
    wsUrl: httpUrl.replace(/^http/, 'ws'),
    httpUrl,
    grpcAddress,
    operatorUrl,
    certificate: certFile ? readFileSync(certFile) : null,
    client,
    stderr: child.stderr,
    kill: async () => {
      client.close();
      await child.kill();
    },
    stop: async () => {
      client.close();
      await child.stop();
    },
  };
}

/** gRPC CreateWorkspace, then a device enrolled with a real pairing code. */
export async function enrollThrough(gateway: GatewayChild): Promise<{ workspaceId: string; deviceId: string; credential: string }> {
  const { client } = gateway;
  const { workspace } = await call(
    client,
    client.createWorkspace,
    { requestId: randomUUID(), ownerUserId: 'user-1', displayName: 'Crash test', endToEndEncrypted: false },
    childAuth,
  );
  const workspaceId = workspace!.workspaceId;
  const { pairingCode } = await call(client, client.createPairingCode, { workspaceId, ttlSeconds: 0, requestedByUserId: 'user-1' }, childAuth);
  const redeemed = await postJson(gateway, '/v1/device-enrollments/redeem', { code: pairingCode });
  if (redeemed.status !== 200) throw new Error(`enrollment failed with ${redeemed.status}`);
  const body = JSON.parse(redeemed.body) as { deviceId: string; deviceCredential: string };
  return { workspaceId, deviceId: body.deviceId, credential: body.deviceCredential };
}

/** A JSON POST to the gateway's HTTP listener, trusting the certificate it serves (fetch cannot be given one). */
function postJson(gateway: GatewayChild, path: string, body: unknown): Promise<{ status: number; body: string }> {
  const url = new URL(path, gateway.httpUrl);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, { method: 'POST', headers: { 'content-type': 'application/json' }, ...(gateway.certificate ? { ca: gateway.certificate } : {}) }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** A single-use browser ticket from gRPC CreateBrowserSession. */
export async function ticketFrom(gateway: GatewayChild, workspaceId: string, userId = 'user-1', origin = 'https://app.example'): Promise<string> {
  const { client } = gateway;
  const { descriptor } = await call(client, client.createBrowserSession, { workspaceId, origin, acceptedWireVersions: ['1.2', '1.1'], userId }, childAuth);
  const ticket = descriptor ? new URL(descriptor.connectUrl).searchParams.get('ticket') : null;
  if (!ticket) throw new Error('CreateBrowserSession returned no ticket');
  return ticket;
}

/** gRPC GetWorkspaceStatus, with the device it names when online. */
export async function statusFrom(gateway: GatewayChild, workspaceId: string): Promise<{ status: 'online' | 'offline'; deviceId: string }> {
  const { client } = gateway;
  const reply = await call(client, client.getWorkspaceStatus, { workspaceId }, childAuth);
  return {
    status: reply.status?.connectivity === WorkspaceConnectivity.ONLINE ? 'online' : 'offline',
    deviceId: reply.status?.deviceId ?? '',
  };
}
