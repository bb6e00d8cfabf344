/**
 * The project's browser library (@trustmesh/relay-client, on `ws`) against the data plane, with a scripted
 * Companion enrolled through the real control plane: it connects through a descriptor (tickets from gRPC
 * CreateBrowserSession), gets responses, applies the stream, and after a dropped connection is caught up
 * from the gateway's frames log with no gap, reset or snapshot.
 */
import { WebSocket } from 'ws';

import { waitUntil } from '@trustmesh/platform-testing';
import { RelayClient } from '@trustmesh/relay-client';

import { frames } from './support/frames';
import { companion, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN as ORIGIN, type TestRelay } from './support/test-relay';

let gateway: TestRelay;
const peers: TestPeer[] = [];

beforeAll(async () => {
  gateway = await startTestRelay();
}, 120_000);

afterAll(async () => {
  for (const peer of peers) peer.close();
  await gateway?.close();
});

it('serves RelayClient: requests, the stream, and catch-up after a dropped connection', async () => {
  const device = await gateway.enrollCompanion();
  const { workspaceId } = device;
  const peer = await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
  peers.push(peer);
  await gateway.waitForStatus(workspaceId, 'online');
  // The scripted Companion answers thread.list.
  peer.ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as { type: string; method?: string; requestId?: string };
    if (frame.type === 'runtime.request' && frame.method === 'thread.list') peer.send(frames.response(workspaceId, frame.requestId as string));
  });

  let socket: WebSocket | undefined;
  // Holds a reconnect back until the test opens it.
  let gate: Promise<void> = Promise.resolve();
  const client = new RelayClient({
    descriptor: async () => {
      await gate;
      return {
      connectUrl: await gateway.browserUrl(workspaceId, { origin: ORIGIN, userId: 'user-client' }),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      };
    },
    createSocket: (url) => (socket = new WebSocket(url, { origin: ORIGIN })),
    allowInsecureLoopback: true,
  });
  const resets: unknown[] = [];
  const gaps: unknown[] = [];
  client.on('reset', (notice) => resets.push(notice));
  client.on('gap', (notice) => gaps.push(notice));
  client.on('error', () => undefined);
  try {
    await client.connect();
    expect(client.wireVersion).toBe('1.2');
    expect(await client.threads.list()).toEqual({ items: [], nextCursor: null });

    for (const sequence of [0, 1, 2, 3, 4]) peer.send(frames.event(workspaceId, sequence));
    await waitUntil(() => client.cursor === 4, { what: 'the client cursor at 4' });

    // The connection drops; the Companion streams on and then goes away; the client reconnects.
    const readyAgain = new Promise((resolve) => client.once('ready', resolve));
    let reopen: () => void = () => undefined;
    gate = new Promise((resolve) => (reopen = resolve));
    socket?.terminate();
    for (const sequence of [5, 6, 7]) peer.send(frames.event(workspaceId, sequence));
    await waitUntil(() => gateway.dataPlane.metrics.registry.value('relay_frames_total', { direction: 'inbound', type: 'runtime.event' }) >= 8, {
      what: 'the frames at the gateway',
    });
    peer.close();
    await peer.closed;
    const replayedBefore = gateway.dataPlane.metrics.registry.value('relay_catchup_frames_total');
    reopen();
    await readyAgain;
    await waitUntil(() => client.cursor === 7, { what: 'the client caught up to 7' });
    expect(gateway.dataPlane.metrics.registry.value('relay_catchup_frames_total') - replayedBefore).toBe(3);
    expect(resets).toEqual([]);
    expect(gaps).toEqual([]);
    expect(peer.ofType('runtime.request').map((frame) => frame['method'])).toEqual(['thread.list']);
  } finally {
    client.close();
  }
});
