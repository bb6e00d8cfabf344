// A Companion socket whose frame handling throws, on real `ws` sockets: the failure ends that socket with
// 1011 and is counted, and the process (and every other socket) goes on.
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { waitUntil } from '@trustmesh/platform-testing';
import { WebSocket, WebSocketServer } from 'ws';

import type { RelayDirectory } from '../control/relay-directory.port';
import { acceptCompanion } from './companion.socket';
import { DEFAULT_DATA_PLANE_CONFIG } from './data-plane.config';
import { DataPlaneMetrics } from './data-plane.metrics';
import type { CompanionPeer, WorkspaceHub } from './workspace-hub';

const WORKSPACE_ID = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';
const DEVICE_ID = '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53';
const deviceConnect = JSON.stringify({ type: 'device.connect', protocolVersion: '1.2', deviceId: DEVICE_ID, pairingToken: 'device-credential-0123456789abcdef' });
const event = (relaySequence: number) =>
  JSON.stringify({
    type: 'runtime.event',
    workspaceId: WORKSPACE_ID,
    relaySequence,
    event: {
      protocolVersion: '1.1',
      runtimeInstanceId: DEVICE_ID,
      sequence: relaySequence,
      timestamp: '2026-11-30T10:00:00.000Z',
      threadId: DEVICE_ID,
      turnId: DEVICE_ID,
      event: { type: 'turn.started' },
    },
  });

describe('a Companion socket whose frame handling fails', () => {
  let server: WebSocketServer;
  let url: string;

  beforeAll(async () => {
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  });

  async function connect(hub: Partial<WorkspaceHub>, metrics: DataPlaneMetrics) {
    const directory = { authenticateDevice: async () => ({ deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, endToEndEncrypted: false }) };
    server.once('connection', (ws: WebSocket, request: IncomingMessage) => {
      acceptCompanion(ws, request.socket, {
        config: { ...DEFAULT_DATA_PLANE_CONFIG, heartbeatIntervalMs: 60_000 },
        directory: directory as unknown as RelayDirectory,
        hub: { companionClosed: () => undefined, ...hub } as unknown as WorkspaceHub,
        metrics,
        logger: { log: () => undefined },
        admit: () => true,
      });
    });
    const client = new WebSocket(url);
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    await once(client, 'open');
    client.send(deviceConnect);
    return { client, closed };
  }

  it('closes that socket with 1011 and counts it when routing a frame throws', async () => {
    const metrics = new DataPlaneMetrics();
    const routed: CompanionPeer[] = [];
    const { client, closed } = await connect(
      {
        companionConnected: async (peer: CompanionPeer) => void routed.push(peer),
        companionFrame: () => {
          throw new RangeError('Maximum call stack size exceeded');
        },
      },
      metrics,
    );
    await waitUntil(() => routed.length === 1, { what: 'the Companion to be live' });
    client.send(event(0));
    await expect(closed).resolves.toBe(1011);
    expect(metrics.registry.value('relay_rejections_total', { socket: 'companion', code: 'RELAY_INTERNAL_ERROR' })).toBe(1);
  });

  it('closes that socket with 1011 when going live fails, instead of leaving a rejection unhandled', async () => {
    const metrics = new DataPlaneMetrics();
    const { closed } = await connect({ companionConnected: async () => Promise.reject(new TypeError('hub broke')) }, metrics);
    await expect(closed).resolves.toBe(1011);
    expect(metrics.registry.value('relay_rejections_total', { socket: 'companion', code: 'RELAY_INTERNAL_ERROR' })).toBe(1);
  });
});
