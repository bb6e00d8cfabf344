/**
 * The real gateway for the data plane's e2e suites: `startRelayGateway` (the same bootstrap as `nx serve`)
 * on embedded PGlite in a temp data dir, with the real control plane behind the data plane. Devices are
 * enrolled the way a user enrols them (gRPC CreateWorkspace + CreatePairingCode with the development
 * service credential, then HTTP POST /v1/device-enrollments/redeem), browser tickets come from gRPC
 * CreateBrowserSession, revocation from gRPC RevokeDevice, and what the control plane recorded (presence,
 * session ends, interaction audit) is read back from its event streams.
 *
 * TLS is off (plain ws:// and http:// on 127.0.0.1) to keep start-up lean; gateway.full-stack covers wss.
 */
import { randomUUID } from 'node:crypto';

import type * as grpc from '@grpc/grpc-js';
import { relayControlV1GrpcJs } from '@trustmesh/contracts';
import type { EventEnvelope } from '@trustmesh/platform-events';
import { createSeededDataDir } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';

import { streams } from '../../../src/control/control.events';
import { RELAY_DIRECTORY, type RelayDirectory } from '../../../src/control/relay-directory.port';
import type { DataPlane } from '../../../src/data-plane/data-plane';
import { DATA_PLANE } from '../../../src/data-plane/data-plane.module';
import { startRelayGateway, type RelayGatewayHandle } from '../../../src/relay-gateway.bootstrap';
import { bearer, call, controlClient, type RelayControlClient } from '../../support/gateway.fixture';

const { WorkspaceConnectivity } = relayControlV1GrpcJs;

export const TEST_ORIGIN = 'https://app.example';

export interface EnrolledCompanion {
  workspaceId: string;
  deviceId: string;
  credential: string;
}

export interface TestRelay {
  gateway: RelayGatewayHandle;
  dataPlane: DataPlane;
  /** The real control plane's directory, as the data plane has it (for narrowly scoped spies only). */
  directory: RelayDirectory;
  /** ws://127.0.0.1:<port> */
  wsUrl: string;
  /** http://127.0.0.1:<port> */
  httpUrl: string;
  client: RelayControlClient;
  auth: grpc.Metadata;
  /** gRPC CreateWorkspace. */
  createWorkspace(options?: { encrypted?: boolean }): Promise<string>;
  /** A device enrolled with a real pairing code (a new workspace unless one is given). */
  enrollCompanion(options?: { workspaceId?: string; encrypted?: boolean }): Promise<EnrolledCompanion>;
  /** A single-use browser ticket from gRPC CreateBrowserSession (the `ticket` of its connect URL). */
  browserTicket(workspaceId: string, options?: { origin?: string; acceptedWireVersions?: string[]; userId?: string }): Promise<string>;
  /** `${wsUrl}/v1/browser?ticket=…` for a fresh ticket. */
  browserUrl(workspaceId: string, options?: { origin?: string; acceptedWireVersions?: string[]; userId?: string }): Promise<string>;
  /** gRPC GetWorkspaceStatus: online or offline. */
  status(workspaceId: string): Promise<'online' | 'offline'>;
  waitForStatus(workspaceId: string, status: 'online' | 'offline'): Promise<void>;
  /** gRPC RevokeDevice. */
  revoke(device: EnrolledCompanion): Promise<void>;
  /** The control plane's presence and audit events of a workspace (CompanionDisconnected, BrowserSessionEnded, InteractionAudited, …). */
  events(workspaceId: string, eventType?: string): Promise<Array<Record<string, unknown>>>;
  /** Waits until `events(workspaceId, eventType)` has an entry matching `predicate`. */
  waitForEvent(workspaceId: string, eventType: string, predicate: (data: Record<string, unknown>) => boolean, what: string): Promise<void>;
  close(): Promise<void>;
}

export interface TestRelayOptions {
  /** Data plane settings as their environment variables (RELAY_FIRST_ACK_TIMEOUT_MS, RELAY_WS_HEARTBEAT_MS, …). */
  dataPlane?: Record<string, string>;
  /** Gateway environment on top of the test defaults. */
  env?: Record<string, string>;
  /** Reuse a data dir (a restarted gateway); otherwise a temp one is made and removed on close. */
  dataDir?: string;
}

export async function startTestRelay(options: TestRelayOptions = {}): Promise<TestRelay> {
  const temp = options.dataDir ? undefined : await createSeededDataDir('relay-gateway-data-plane');
  const dataDir = options.dataDir ?? (temp as { dataDir: string }).dataDir;
  // The data plane reads its settings from process.env when Nest builds it (this test file's copy).
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(options.dataPlane ?? {})) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  let gateway: RelayGatewayHandle;
  try {
    gateway = await startRelayGateway(
      {
        TRUSTMESH_DATA_DIR: dataDir,
        RELAY_HTTP_PORT: '0',
        RELAY_GRPC_PORT: '0',
        RELAY_TLS: 'off',
        LOG_LEVEL: 'error',
        // Suites enrol a device per test, all from 127.0.0.1.
        RELAY_ENROLLMENT_RATE_LIMIT: '100000',
        ...options.env,
      },
      { print: () => undefined, writeLog: () => undefined },
    );
  } catch (error) {
    await temp?.remove();
    throw error;
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  const client = controlClient(gateway);
  const auth = bearer(gateway.developmentServiceCredential);
  const wsUrl = gateway.httpUrl.replace(/^http:/, 'ws:');

  const createWorkspace = async (opts: { encrypted?: boolean } = {}): Promise<string> => {
    const { workspace } = await call(
      client,
      client.createWorkspace,
      { requestId: randomUUID(), ownerUserId: 'user-1', displayName: 'Data plane test', endToEndEncrypted: opts.encrypted ?? false },
      auth,
    );
    if (!workspace) throw new Error('CreateWorkspace returned no workspace');
    return workspace.workspaceId;
  };

  const browserTicket = async (workspaceId: string, opts: { origin?: string; acceptedWireVersions?: string[]; userId?: string } = {}): Promise<string> => {
    const { descriptor } = await call(
      client,
      client.createBrowserSession,
      { workspaceId, origin: opts.origin ?? TEST_ORIGIN, acceptedWireVersions: opts.acceptedWireVersions ?? ['1.2', '1.1'], userId: opts.userId ?? 'user-1' },
      auth,
    );
    const ticket = descriptor ? new URL(descriptor.connectUrl).searchParams.get('ticket') : null;
    if (!ticket) throw new Error('CreateBrowserSession returned no ticket');
    return ticket;
  };

  const status = async (workspaceId: string): Promise<'online' | 'offline'> => {
    const reply = await call(client, client.getWorkspaceStatus, { workspaceId }, auth);
    return reply.status?.connectivity === WorkspaceConnectivity.ONLINE ? 'online' : 'offline';
  };

  const events = async (workspaceId: string, eventType?: string): Promise<Array<Record<string, unknown>>> => {
    const read = async (streamId: string) => (await gateway.infrastructure.store.readStream(streamId)).map((event) => event.envelope as EventEnvelope);
    const all = [...(await read(streams.presence(workspaceId))), ...(await read(streams.audit(workspaceId)))];
    return all.filter((envelope) => eventType === undefined || envelope.eventType === eventType).map((envelope) => envelope.data as Record<string, unknown>);
  };

  return {
    gateway,
    dataPlane: gateway.app.get<DataPlane>(DATA_PLANE),
    directory: gateway.app.get<RelayDirectory>(RELAY_DIRECTORY),
    wsUrl,
    httpUrl: gateway.httpUrl,
    client,
    auth,
    createWorkspace,
    async enrollCompanion(opts = {}) {
      const workspaceId = opts.workspaceId ?? (await createWorkspace(opts.encrypted === undefined ? {} : { encrypted: opts.encrypted }));
      const { pairingCode } = await call(client, client.createPairingCode, { workspaceId, ttlSeconds: 0, requestedByUserId: 'user-1' }, auth);
      const response = await fetch(`${gateway.httpUrl}/v1/device-enrollments/redeem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: pairingCode }),
      });
      const body = (await response.json()) as { deviceId?: string; deviceCredential?: string };
      if (response.status !== 200 && response.status !== 201) throw new Error(`enrollment failed with ${response.status}`);
      if (!body.deviceId || !body.deviceCredential) throw new Error('enrollment returned no device credential');
      return { workspaceId, deviceId: body.deviceId, credential: body.deviceCredential };
    },
    browserTicket,
    browserUrl: async (workspaceId, opts = {}) => `${wsUrl}/v1/browser?ticket=${encodeURIComponent(await browserTicket(workspaceId, opts))}`,
    status,
    waitForStatus: (workspaceId, wanted) => waitUntil(async () => (await status(workspaceId)) === wanted, { what: `the workspace ${wanted}`, timeoutMs: 15_000 }),
    async revoke(device) {
      await call(client, client.revokeDevice, { workspaceId: device.workspaceId, deviceId: device.deviceId, reason: 'test', revokedByUserId: 'user-1' }, auth);
    },
    events,
    waitForEvent: (workspaceId, eventType, predicate, what) =>
      waitUntil(async () => (await events(workspaceId, eventType)).some(predicate), { what, timeoutMs: 15_000 }),
    close: async () => {
      client.close();
      await gateway.close();
      await temp?.remove();
    },
  };
}
