/**
 * The gateway killed with SIGKILL (a real child process on embedded PGlite, restarted on the same data dir):
 * what a crash may cost is only what the Companion can restore. A browser ACK reaches the Companion only once the
 * frames it covers are in the frames log, so frames the gateway lost are re-sent by the Companion and never leave
 * a hole without a gap; and the restarted gateway does not report the dead Companion as online.
 */
import { WebSocket } from 'ws';

import { createSeededDataDir } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';
import { RelayClient, RelayClientError } from '@trustmesh/relay-client';

import { enrollThrough, startGatewayChild, statusFrom, ticketFrom, type GatewayChild } from './support/gateway.child';
import { frames } from './support/frames';
import { browser, type Frame, type TestPeer } from './support/peers';
import { ReplayingCompanion } from './support/replaying-companion';

const ORIGIN = 'https://app.example';

/** Every `runtime.event` and `runtime.gap` a browser received, checked against its cursor: no hole without a gap. */
function holes(received: Frame[], cursor: number): string[] {
  const problems: string[] = [];
  let at = cursor;
  for (const frame of received) {
    if (frame.type === 'runtime.gap') {
      at = Math.max(at, frame['throughRelaySequence'] as number);
    } else if (frame.type === 'runtime.event') {
      const sequence = frame['relaySequence'] as number;
      if (sequence > at + 1) problems.push(`hole ${at + 1}…${sequence - 1} without a gap`);
      if (sequence <= at) problems.push(`${sequence} again at cursor ${at}`);
      at = Math.max(at, sequence);
    }
  }
  return problems;
}

/** relay_bus_published_total for the frames log, from the gateway's /metrics. */
async function framesLogged(gateway: GatewayChild): Promise<number> {
  const text = await (await fetch(`${gateway.operatorUrl}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith('relay_bus_published_total{') && entry.includes('relay.workspace-frames.v1'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('a gateway killed mid-stream', () => {
  const peers: TestPeer[] = [];
  const gateways: GatewayChild[] = [];
  let dir: Awaited<ReturnType<typeof createSeededDataDir>>;

  beforeEach(async () => {
    dir = await createSeededDataDir('relay-gateway-crash');
  });

  afterEach(async () => {
    for (const peer of peers.splice(0)) peer.close();
    for (const gateway of gateways.splice(0)) await gateway.kill();
    await dir.remove();
  });

  /** A gateway on the test's data dir; with `null`, each start picks its own replica id, as `npm start` does. */
  async function start(replicaId: string | null = 'crash-a'): Promise<GatewayChild> {
    const gateway = await startGatewayChild({
      TRUSTMESH_DATA_DIR: dir.dataDir,
      ...(replicaId ? { RELAY_REPLICA_ID: replicaId } : {}),
      RELAY_FIRST_ACK_TIMEOUT_MS: '60000',
    });
    gateways.push(gateway);
    return gateway;
  }

  async function openBrowser(gateway: GatewayChild, workspaceId: string, userId: string): Promise<TestPeer> {
    const peer = await browser(gateway.wsUrl, await ticketFrom(gateway, workspaceId, userId, ORIGIN), ORIGIN);
    peers.push(peer);
    return peer;
  }

  it('forwards an ACK only once its frames are in the log, so frames lost in a crash come back from the Companion', async () => {
    let gateway = await start();
    const device = await enrollThrough(gateway);
    const { workspaceId } = device;
    const sim = new ReplayingCompanion(device);
    await sim.connect(gateway.wsUrl);
    peers.push(sim.peer as TestPeer);
    await waitUntil(async () => (await statusFrom(gateway, workspaceId)).status === 'online', { what: 'the workspace online' });

    const b = await openBrowser(gateway, workspaceId, 'user-b');
    b.send(frames.ack(workspaceId, -1));
    sim.send(30);
    await b.waitFor((frame) => frame.type === 'runtime.event', 'frames 0…29 at B', 30);
    b.send(frames.ack(workspaceId, 29));
    await waitUntil(() => sim.acknowledged === 29, { what: 'the ACK of 29 at the Companion' });
    // 0…29 are in the log before the window under test opens.
    await waitUntil(async () => (await framesLogged(gateway)) >= 30, { what: 'frames 0…29 in the log' });

    // 30…34 reach B, B ACKs them, and the gateway dies the moment that ACK reaches the Companion.
    sim.send(5);
    await b.waitFor((frame) => frame.type === 'runtime.event', 'frames 30…34 at B', 35);
    b.send(frames.ack(workspaceId, 34));
    await waitUntil(() => sim.acknowledged === 34, { what: 'the ACK of 34 at the Companion', intervalMs: 1 });
    await gateway.kill();

    // After the restart, browser A (cursor 14) catches up from the log, then the Companion comes back.
    gateway = await start();
    const a = await openBrowser(gateway, workspaceId, 'user-a');
    a.send(frames.ack(workspaceId, 14));
    await a.waitFor((frame) => frame.type === 'runtime.gap', 'the catch-up gap at A');
    await sim.connect(gateway.wsUrl);
    peers.push(sim.peer as TestPeer);
    sim.send(1);
    await a.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === 35, 'frame 35 at A');
    expect(holes(a.received, 14)).toEqual([]);
  }, 240_000);

  it('a restarted gateway reports the Companion that died with its predecessor offline at once, and requests fail with WORKSPACE_OFFLINE', async () => {
    // No RELAY_REPLICA_ID: each process has its own replica id, as with `npm start`.
    let gateway = await start(null);
    const device = await enrollThrough(gateway);
    const { workspaceId } = device;
    const sim = new ReplayingCompanion(device);
    await sim.connect(gateway.wsUrl);
    peers.push(sim.peer as TestPeer);
    await waitUntil(async () => (await statusFrom(gateway, workspaceId)).status === 'online', { what: 'the workspace online' });
    await gateway.kill();
    sim.close();

    gateway = await start(null);
    // At once, not after the dead replica's liveness timeout.
    expect(await statusFrom(gateway, workspaceId)).toEqual({ status: 'offline', deviceId: '' });
    const session = await openBrowser(gateway, workspaceId, 'user-a');
    expect(session.received[0]).toMatchObject({ type: 'session.ready', workspaceStatus: 'offline' });

    // The project's browser library: a request gets the protocol's WORKSPACE_OFFLINE, not a silent timeout.
    const current = gateway;
    const client = new RelayClient({
      descriptor: async () => ({ connectUrl: `${current.wsUrl}/v1/browser?ticket=${encodeURIComponent(await ticketFrom(current, workspaceId, 'user-c', ORIGIN))}`, expiresAt: new Date(Date.now() + 60_000).toISOString() }),
      createSocket: (url) => new WebSocket(url, { origin: ORIGIN }),
      allowInsecureLoopback: true,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const failure = await client.threads.list().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(RelayClientError);
      expect(failure).toMatchObject({ code: 'WORKSPACE_OFFLINE' });
    } finally {
      client.close();
    }
  }, 240_000);
});
