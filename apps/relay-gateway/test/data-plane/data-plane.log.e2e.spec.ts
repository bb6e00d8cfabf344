/**
 * The frames log, retention and the data plane's limits, end to end on the real gateway (embedded PGlite,
 * its local bus and its control plane): frames written to `relay.workspace-frames.v1`, a restarted gateway
 * rebuilding catch-up from the log, a gap for frames older than the retention, the send buffer's high-water
 * mark, and graceful shutdown (1001). Devices are enrolled with pairing codes, tickets come from
 * CreateBrowserSession, and session ends are read from the control plane's event streams.
 */
import { randomUUID } from 'node:crypto';

import { createSeededDataDir, createTempDataDir } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';

import { WORKSPACE_FRAMES_TOPIC, type FramesSequencedData } from '../../src/data-plane/frames-bus.records';
import { frames } from './support/frames';
import { browser, companion, connect, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN as ORIGIN, type TestRelay } from './support/test-relay';

const peers: TestPeer[] = [];

afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
});

function track<T extends TestPeer>(peer: T): T {
  peers.push(peer);
  return peer;
}

async function openBrowser(gateway: TestRelay, workspaceId: string, userId = 'user-1'): Promise<TestPeer> {
  return track(await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId, { userId }), ORIGIN));
}

/** An enrolled device whose Companion is connected and online. */
async function onlineCompanion(gateway: TestRelay) {
  const device = await gateway.enrollCompanion();
  const peer = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential)));
  await gateway.waitForStatus(device.workspaceId, 'online');
  return { device, workspaceId: device.workspaceId, peer };
}

const endedWith = (workspaceId: string) => (data: Record<string, unknown>) => data['workspaceId'] === workspaceId;

describe('frames log on the bus', () => {
  it('writes sequenced frames to relay.workspace-frames.v1 and a restarted gateway catches browsers up from it', async () => {
    const dir = await createSeededDataDir('relay-gateway-frames-log');
    const env = { RELAY_REPLICA_ID: 'replica-a' };
    const first = await startTestRelay({ dataDir: dir.dataDir, env });
    let second: TestRelay | undefined;
    try {
      const { workspaceId, peer } = await onlineCompanion(first);
      const sent = [0, 1, 2, 3, 4].map((sequence) => frames.event(workspaceId, sequence));
      for (const frame of sent) peer.send(frame);

      // The log holds the frames, in order, as the Companion sent them.
      const logged: unknown[] = [];
      const reader = first.gateway.infrastructure.bus;
      const subscription = await reader.subscribe({
        groupId: `test-reader-${randomUUID()}`,
        topics: [WORKSPACE_FRAMES_TOPIC],
        start: 'earliest',
        handler: async (record) => {
          if (record.key !== workspaceId) return;
          for (const item of (record.envelope.data as FramesSequencedData).items) logged.push(JSON.parse(item.text));
        },
      });
      await waitUntil(() => logged.length >= 5, { what: 'the frames in the log' });
      await subscription.stop();
      expect(logged).toEqual(sent);

      peer.close();
      await first.close();
      // A new gateway process on the same data dir (single replica, as on embedded PGlite): nothing in
      // memory, the Companion is offline; the log has the frames.
      second = await startTestRelay({ dataDir: dir.dataDir, env });
      const restarted = second;
      await waitUntil(() => restarted.dataPlane.metrics.registry.value('relay_frames_log_retained') >= 5, { what: 'the ring rebuilt from the log' });
      const session = await openBrowser(second, workspaceId);
      expect(session.received[0]).toMatchObject({ workspaceStatus: 'offline' });
      session.send(frames.ack(workspaceId, -1));
      const caught = await session.waitFor((frame) => frame.type === 'runtime.event', 'the catch-up', 5);
      expect(caught).toEqual(sent);
    } finally {
      for (const peer of peers.splice(0)) peer.close();
      await first.close();
      await second?.close();
      await dir.remove();
    }
  }, 120_000);
});

describe('a bus outage past the publish queue bound', () => {
  let gateway: TestRelay;

  beforeAll(async () => {
    gateway = await startTestRelay({ dataPlane: { RELAY_FRAMES_PUBLISH_QUEUE_FRAMES: '3', RELAY_FIRST_ACK_TIMEOUT_MS: '60000' } });
  }, 120_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await gateway?.close();
  });

  it('never lets an ACK covering frames the queue gave up reach the Companion, even once later frames are logged', async () => {
    const metric = (name: string) => gateway.dataPlane.metrics.registry.value(name, { topic: WORKSPACE_FRAMES_TOPIC });
    const { workspaceId, peer } = await onlineCompanion(gateway);
    const session = await openBrowser(gateway, workspaceId);
    session.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the first ACK');
    const published = metric('relay_bus_published_total');
    const dropped = metric('relay_bus_queue_drops_total');
    const accounted = () => metric('relay_bus_published_total') - published + metric('relay_bus_queue_drops_total') - dropped;
    for (const sequence of [0, 1]) peer.send(frames.event(workspaceId, sequence));
    await waitUntil(() => metric('relay_bus_published_total') - published >= 2, { what: 'frames 0 and 1 in the log' });

    // The frames topic becomes unavailable (the rest of the bus keeps working): 8 frames, a queue of 3.
    const bus = gateway.gateway.infrastructure.bus;
    const publish = bus.publish.bind(bus);
    const outage = jest
      .spyOn(bus, 'publish')
      .mockImplementation((topic, envelopes) => (topic === WORKSPACE_FRAMES_TOPIC ? Promise.reject(new Error('broker unavailable')) : publish(topic, envelopes)));
    for (let sequence = 2; sequence < 10; sequence += 1) peer.send(frames.event(workspaceId, sequence));
    await session.waitFor((frame) => frame.type === 'runtime.event', 'frames 0…9 at the browser', 10);
    await waitUntil(() => metric('relay_bus_queue_drops_total') - dropped >= 5, { what: 'the queue giving up the oldest frames' });
    outage.mockRestore();

    // The bus is back: what is still queued and a later frame reach the log, past the frames that never will.
    peer.send(frames.event(workspaceId, 10));
    await session.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === 10, 'frame 10 at the browser');
    session.send(frames.ack(workspaceId, 10));
    await waitUntil(() => accounted() >= 11, { what: 'every frame logged or given up', timeoutMs: 30_000 });
    // An ACK within what the log holds still goes on at once; it arrives after the ACK of 10 would have.
    session.send(frames.ack(workspaceId, 1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack' && frame['throughRelaySequence'] === 1, 'the ACK of 1');
    expect(peer.ofType('runtime.ack').map((frame) => frame['throughRelaySequence'])).toEqual([-1, 1]);
    expect(metric('relay_bus_queue_drops_total') - dropped).toBeGreaterThanOrEqual(5);
  }, 120_000);
});

describe('retention and limits', () => {
  let gateway: TestRelay;

  beforeAll(async () => {
    gateway = await startTestRelay({
      dataPlane: { RELAY_FRAMES_RETENTION_FRAMES: '3', RELAY_WS_SEND_HIGH_WATER_BYTES: '65536', RELAY_FIRST_ACK_TIMEOUT_MS: '60000' },
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
  });

  it('sends runtime.gap only for frames older than the retention', async () => {
    const { workspaceId, peer } = await onlineCompanion(gateway);
    const sent = [0, 1, 2, 3, 4, 5].map((sequence) => frames.event(workspaceId, sequence));
    for (const frame of sent) peer.send(frame);
    await waitUntil(() => gateway.dataPlane.metrics.registry.value('relay_frames_total', { direction: 'inbound', type: 'runtime.event' }) >= 6, {
      what: 'the frames at the gateway',
    });
    const session = await openBrowser(gateway, workspaceId);
    session.send(frames.ack(workspaceId, -1));
    await session.waitFor((frame) => frame.type === 'runtime.event', 'the retained frames', 3);
    expect(session.received.slice(1)).toEqual([frames.gap(workspaceId, 0, 2), sent[3], sent[4], sent[5]]);
  });

  it('closes a browser that stops reading once its send buffer passes the high-water mark', async () => {
    const { workspaceId, peer } = await onlineCompanion(gateway);
    const slow = await openBrowser(gateway, workspaceId);
    slow.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    const socket = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    const big = 'x'.repeat(256 * 1024);
    let sequence = 0;
    // Keep streaming until the gateway gives up on the slow browser; memory stays bounded by the mark.
    while (gateway.dataPlane.metrics.registry.value('relay_send_buffer_drops_total', { socket: 'browser' }) === 0) {
      for (let i = 0; i < 8; i += 1) peer.send(frames.event(workspaceId, sequence++, big));
      await new Promise((resolve) => setImmediate(resolve));
      await waitUntil(() => gateway.dataPlane.metrics.registry.value('relay_frames_total', { direction: 'inbound', type: 'runtime.event' }) > 0, {
        what: 'frames at the gateway',
      });
      if (sequence > 4_000) throw new Error('the high-water mark never tripped');
    }
    await gateway.waitForEvent(workspaceId, 'BrowserSessionEnded', endedWith(workspaceId), 'the session to end');
    expect(await gateway.events(workspaceId, 'BrowserSessionEnded')).toContainEqual(expect.objectContaining({ workspaceId, reason: 'slow-consumer' }));
    socket.resume();
    await slow.closed;
    // The Companion is unaffected and the workspace keeps serving new sessions.
    expect(peer.ws.readyState).toBe(peer.ws.OPEN);
    const fresh = await openBrowser(gateway, workspaceId);
    expect(fresh.received[0]).toMatchObject({ workspaceStatus: 'online' });
  });
});

describe('liveness', () => {
  let gateway: TestRelay;

  beforeAll(async () => {
    gateway = await startTestRelay({ dataPlane: { RELAY_WS_HEARTBEAT_MS: '200', RELAY_BROWSER_FRAME_BURST: '40', RELAY_BROWSER_FRAMES_PER_SECOND: '1' } });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
  });

  it('terminates a peer that stops answering pings, and keeps one that answers', async () => {
    const workspaceId = await gateway.createWorkspace();
    const mute = track(connect(await gateway.browserUrl(workspaceId), { origin: ORIGIN, autoPong: false }));
    const alive = await openBrowser(gateway, workspaceId);
    await mute.waitFor((frame) => frame.type === 'session.ready', 'session.ready');
    expect(await mute.waitForClose()).toBe(1006);
    await gateway.waitForEvent(workspaceId, 'BrowserSessionEnded', endedWith(workspaceId), 'the session end');
    expect(await gateway.events(workspaceId, 'BrowserSessionEnded')).toContainEqual(expect.objectContaining({ workspaceId, reason: 'heartbeat-timeout' }));
    expect(alive.ws.readyState).toBe(alive.ws.OPEN);
  });

  it('never rate-limits a browser for ACKing every frame of a fast stream, nor spends its request budget on ACKs', async () => {
    const { workspaceId, peer } = await onlineCompanion(gateway);
    const session = await openBrowser(gateway, workspaceId);
    session.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the first ACK');
    // 300 frames, far past this gateway's budget (burst 40, 1 frame/s), each ACKed as §6 asks.
    let acked = -1;
    session.ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { relaySequence?: number };
      if (typeof frame.relaySequence === 'number') {
        acked = frame.relaySequence;
        session.send(frames.ack(workspaceId, acked));
      }
    });
    for (let sequence = 0; sequence < 300; sequence += 1) peer.send(frames.event(workspaceId, sequence));
    await peer.waitFor((frame) => frame.type === 'runtime.ack' && frame.throughRelaySequence === 299, 'the ACK of the last frame');
    expect(session.ofType('session.error')).toEqual([]);
    expect(session.ws.readyState).toBe(session.ws.OPEN);
    // The ACKs left the request budget whole: 30 requests (of the burst of 40) still pass.
    for (let i = 0; i < 30; i += 1) session.send(frames.request(workspaceId));
    await peer.waitFor((frame) => frame.type === 'runtime.request', 'the requests at the Companion', 30);
    expect(session.ofType('session.error')).toEqual([]);
    // A flood of ACKs beyond one per frame sent (plus a small burst) is refused.
    for (let i = 0; i < 60; i += 1) session.send(frames.ack(workspaceId, 299));
    const [error] = await session.waitFor((frame) => frame.type === 'session.error', 'session.error');
    expect(error).toEqual({ type: 'session.error', code: 'RATE_LIMITED', retryable: true });
  });

  it('ends a browser past its frame rate with a retryable session.error RATE_LIMITED (4012)', async () => {
    const workspaceId = await gateway.createWorkspace();
    const session = await openBrowser(gateway, workspaceId);
    for (let i = 0; i < 60; i += 1) session.send(frames.ack(workspaceId, -1));
    const [error] = await session.waitFor((frame) => frame.type === 'session.error', 'session.error');
    expect(error).toEqual({ type: 'session.error', code: 'RATE_LIMITED', retryable: true });
    expect(await session.waitForClose()).toBe(4012);
  });
});

describe('graceful shutdown', () => {
  it('closes every socket with 1001 and records the ends', async () => {
    const dir = await createTempDataDir('relay-gateway-shutdown');
    const gateway = await startTestRelay({ dataDir: dir.dataDir });
    let reopened: TestRelay | undefined;
    try {
      const { workspaceId, peer } = await onlineCompanion(gateway);
      const session = await openBrowser(gateway, workspaceId);
      await gateway.close();
      expect(await peer.waitForClose()).toBe(1001);
      expect(await session.waitForClose()).toBe(1001);
      // What the stopped gateway recorded is read back by the next process on the same data dir.
      reopened = await startTestRelay({ dataDir: dir.dataDir });
      expect(await reopened.events(workspaceId, 'CompanionDisconnected')).toContainEqual(expect.objectContaining({ workspaceId, reason: 'shutdown' }));
    } finally {
      await gateway.close();
      await reopened?.close();
      await dir.remove();
    }
  }, 120_000);
});
