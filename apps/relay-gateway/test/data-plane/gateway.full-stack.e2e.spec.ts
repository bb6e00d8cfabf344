/**
 * The data plane inside the real gateway (control plane, embedded PGlite, TLS with the development
 * certificate): a device enrolled through gRPC + HTTPS connects over wss, a browser opens the descriptor's
 * wss:// URL, frames flow both ways, the single-use ticket and the origin are enforced at the upgrade,
 * and RevokeDevice closes the Companion before it returns.
 */
import { randomUUID } from 'node:crypto';

import type * as grpc from '@grpc/grpc-js';
import { relayControlV1GrpcJs } from '@trustmesh/contracts';
import { createTempDataDir } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';

import type { RelayGatewayHandle } from '../../src/relay-gateway.bootstrap';
import { bearer, call, controlClient, redeem, startTestGateway, type RelayControlClient } from '../support/gateway.fixture';
import { frames } from './support/frames';
import { connect, type TestPeer } from './support/peers';

const ORIGIN = 'https://app.trustmesh.test';
const { WorkspaceConnectivity } = relayControlV1GrpcJs;
let dataDir: { dataDir: string; remove(): Promise<void> };
let gateway: RelayGatewayHandle;
let client: RelayControlClient;
let auth: grpc.Metadata;
const peers: TestPeer[] = [];

beforeAll(async () => {
  dataDir = await createTempDataDir('relay-gateway-data-plane');
  ({ gateway } = await startTestGateway({ TRUSTMESH_DATA_DIR: dataDir.dataDir, LOG_LEVEL: 'warn' }));
  client = controlClient(gateway);
  auth = bearer(gateway.developmentServiceCredential);
}, 120_000);

afterAll(async () => {
  for (const peer of peers) peer.close();
  client?.close();
  await gateway?.close();
  await dataDir?.remove();
});

const wss = (path: string) => `${gateway.httpUrl.replace(/^https:/, 'wss:')}${path}`;

it('enrols, connects, routes both ways over wss, and revokes at once', async () => {
  const { workspace } = await call(
    client,
    client.createWorkspace,
    { requestId: randomUUID(), ownerUserId: 'user-1', displayName: 'Data plane', endToEndEncrypted: false },
    auth,
  );
  const workspaceId = workspace!.workspaceId;
  const { pairingCode } = await call(client, client.createPairingCode, { workspaceId, ttlSeconds: 0, requestedByUserId: 'user-1' }, auth);
  const enrolled = (await redeem(gateway, pairingCode)).json as { deviceId: string; deviceCredential: string };

  // A pairing code is never a device credential (§12 step 5).
  const withCode = connect(wss('/v1/companion'), { ca: gateway.tls!.cert });
  peers.push(withCode);
  await withCode.opened;
  withCode.send(frames.deviceConnect(enrolled.deviceId, pairingCode));
  expect(await withCode.waitForClose()).toBe(1008);

  const companion = connect(wss('/v1/companion'), { ca: gateway.tls!.cert });
  peers.push(companion);
  await companion.opened;
  companion.send(frames.deviceConnect(enrolled.deviceId, enrolled.deviceCredential, '1.2'));
  await waitUntil(
    async () =>
      (await call(client, client.getWorkspaceStatus, { workspaceId }, auth)).status?.connectivity === WorkspaceConnectivity.ONLINE,
    { what: 'the workspace online over gRPC' },
  );

  const { descriptor } = await call(client, client.createBrowserSession, { workspaceId, origin: ORIGIN, acceptedWireVersions: ['1.2', '1.1'], userId: 'user-1' }, auth);
  const foreign = connect(descriptor!.connectUrl, { origin: 'https://evil.example', ca: gateway.tls!.cert });
  peers.push(foreign);
  await foreign.closed;
  expect(foreign.refusal).toEqual({ status: 403, body: '{"code":"ORIGIN_NOT_ALLOWED"}' });

  const session = connect(descriptor!.connectUrl, { origin: ORIGIN, ca: gateway.tls!.cert });
  peers.push(session);
  await session.waitFor((frame) => frame.type === 'session.ready', 'session.ready');
  expect(session.received[0]).toMatchObject({ type: 'session.ready', workspaceId, workspaceStatus: 'online', relayProtocolVersion: '1.2' });
  const reused = connect(descriptor!.connectUrl, { origin: ORIGIN, ca: gateway.tls!.cert });
  peers.push(reused);
  await reused.closed;
  expect(reused.refusal).toEqual({ status: 401, body: '{"code":"SESSION_TICKET_ALREADY_USED"}' });

  session.send(frames.ack(workspaceId, -1));
  const request = frames.request(workspaceId);
  session.send(request);
  await companion.waitFor((frame) => frame.type === 'runtime.request', 'the request');
  companion.send(frames.response(workspaceId, request.requestId));
  companion.send(frames.event(workspaceId, 0));
  await session.waitFor((frame) => frame.type === 'runtime.response', 'the response');
  await session.waitFor((frame) => frame.type === 'runtime.event', 'the event');

  const revoked = await call(client, client.revokeDevice, { workspaceId, deviceId: enrolled.deviceId, reason: 'lost laptop', revokedByUserId: 'user-1' }, auth);
  expect(revoked.disconnected).toBe(true);
  expect(await companion.waitForClose()).toBe(1008);
  await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'offline', 'offline');
});
