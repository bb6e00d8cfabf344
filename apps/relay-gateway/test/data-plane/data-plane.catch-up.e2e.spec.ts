/**
 * Large catch-ups from the frames log, end to end on the real gateway (embedded PGlite, real sockets): a
 * catch-up larger than a socket's send high-water mark is paced by what the browser reads, never ended as a
 * slow reader; every frame arrives once and in order, also when the catch-up starts with a gap for what the
 * ring no longer holds and goes on, slice by slice, with the frames it holds; and a browser that must heal a
 * gap with snapshots (the project's RelayClient, §6, one open thread) gets its snapshot answer while the
 * catch-up is still flowing and recovers.
 */
import { WebSocket } from 'ws';

import { waitUntil } from '@trustmesh/platform-testing';
import { RelayClient } from '@trustmesh/relay-client';

import { frames, THREAD_ID, TURN_ID } from './support/frames';
import { browser, companion, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN as ORIGIN, type TestRelay } from './support/test-relay';

const peers: TestPeer[] = [];
/** Each catch-up below is several times this mark (and the loopback's kernel buffers, a few MiB). */
const HIGH_WATER = 1024 * 1024;
/** A small event of about 1 KB: 10,100 of them are about 10 MB. */
const SMALL = (sequence: number) => `delta-${sequence}-${'y'.repeat(600)}`;

afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
});

function track<T extends TestPeer>(peer: T): T {
  peers.push(peer);
  return peer;
}

async function onlineCompanion(gateway: TestRelay) {
  const device = await gateway.enrollCompanion();
  const peer = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential)));
  await gateway.waitForStatus(device.workspaceId, 'online');
  return { device, workspaceId: device.workspaceId, peer };
}

function inboundEvents(gateway: TestRelay): number {
  return gateway.dataPlane.metrics.registry.value('relay_frames_total', { direction: 'inbound', type: 'runtime.event' });
}

/**
 * A browser that applies 0…4, ACKs 4 and leaves; the Companion then sends `count` more events; the browser comes
 * back with ACK 4 and reads instantly, ACKing as it goes. Returns the sequences it received and how it ended.
 */
async function reconnectAfter(gateway: TestRelay, count: number, marker?: (sequence: number) => string) {
  const { workspaceId, peer } = await onlineCompanion(gateway);
  const first = track(await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId), ORIGIN));
  first.send(frames.ack(workspaceId, -1));
  await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the first ACK');
  const before = inboundEvents(gateway);
  for (let sequence = 0; sequence < 5; sequence += 1) peer.send(frames.event(workspaceId, sequence));
  await first.waitFor((frame) => frame.type === 'runtime.event', 'frames 0…4', 5);
  first.send(frames.ack(workspaceId, 4));
  await peer.waitFor((frame) => frame.type === 'runtime.ack' && frame['throughRelaySequence'] === 4, 'the ACK of 4');
  first.close();
  await first.closed;
  for (let sequence = 5; sequence < 5 + count; sequence += 1) peer.send(frames.event(workspaceId, sequence, marker?.(sequence)));
  await waitUntil(() => inboundEvents(gateway) - before >= 5 + count, { what: 'every frame at the gateway', timeoutMs: 60_000 });

  const again = track(await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId), ORIGIN));
  const sequences: number[] = [];
  again.ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { type: string; relaySequence?: number };
    if (frame.type !== 'runtime.event' || frame.relaySequence === undefined) return;
    sequences.push(frame.relaySequence);
    if (sequences.length % 100 === 0) again.send(frames.ack(workspaceId, frame.relaySequence));
  });
  again.send(frames.ack(workspaceId, 4));
  const last = 4 + count;
  await waitUntil(() => sequences.includes(last) || again.closeCode !== undefined, { what: 'the whole catch-up', timeoutMs: 60_000 });
  return { session: again, sequences, workspaceId, peer };
}

describe('large catch-ups', () => {
  let gateway: TestRelay;

  beforeAll(async () => {
    // A ring large enough to hold the whole catch-up: no gap is expected. The send high-water mark is lowered
    // to 1 MiB so that each catch-up is several times larger than the mark and the kernel's loopback buffers.
    gateway = await startTestRelay({
      dataPlane: { RELAY_FRAMES_RETENTION_FRAMES: '20000', RELAY_FIRST_ACK_TIMEOUT_MS: '60000', RELAY_WS_SEND_HIGH_WATER_BYTES: String(HIGH_WATER) },
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
  });

  it('catches a browser up on 10,100 small events, each once and in order, and keeps it connected', async () => {
    const { session, sequences } = await reconnectAfter(gateway, 10_100, SMALL);
    expect(session.ofType('session.error')).toEqual([]);
    expect(session.ofType('runtime.gap')).toEqual([]);
    expect(sequences).toEqual(Array.from({ length: 10_100 }, (_, index) => index + 5));
    expect(session.ws.readyState).toBe(WebSocket.OPEN);
  }, 180_000);

  it('catches a browser up on 48 frames of 100 KB (more than the send high-water mark), each once and in order', async () => {
    const big = 'x'.repeat(100 * 1024);
    const { session, sequences, workspaceId, peer } = await reconnectAfter(gateway, 48, () => big);
    expect(session.ofType('session.error')).toEqual([]);
    expect(sequences).toEqual(Array.from({ length: 48 }, (_, index) => index + 5));
    expect(session.ws.readyState).toBe(WebSocket.OPEN);
    // Live frames follow the catch-up, once.
    peer.send(frames.event(workspaceId, 53));
    await waitUntil(() => sequences.includes(53), { what: 'the live frame after the catch-up' });
    expect(sequences.slice(-2)).toEqual([52, 53]);
  }, 180_000);
});

describe('a catch-up that starts with a gap', () => {
  let gateway: TestRelay;

  beforeAll(async () => {
    // The default retention (10,000 frames): 10,100 frames after the cursor start with a gap.
    gateway = await startTestRelay({ dataPlane: { RELAY_WS_SEND_HIGH_WATER_BYTES: String(HIGH_WATER) } });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
  });

  it('lets RelayClient with an open thread heal the gap with a snapshot while the catch-up flows, and reach the head', async () => {
    const { workspaceId, peer } = await onlineCompanion(gateway);
    const snapshots: string[] = [];
    // The scripted Companion answers thread.open and thread.snapshot of the one thread.
    peer.ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { type: string; method?: string; requestId?: string };
      if (frame.type !== 'runtime.request' || (frame.method !== 'thread.open' && frame.method !== 'thread.snapshot')) return;
      snapshots.push(frame.method);
      peer.send(
        frames.response(workspaceId, frame.requestId as string, {
          thread: { id: THREAD_ID, title: 'A thread', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', messageCount: 0 },
          messages: { items: [], nextBeforeSequence: null },
          operations: { items: [], nextBeforeSequence: null },
          pendingApprovals: [],
          transcriptCompleteness: 'complete',
        }),
      );
    });
    let socket: WebSocket | undefined;
    let gate: Promise<void> = Promise.resolve();
    const client = new RelayClient({
      descriptor: async () => {
        await gate;
        return { connectUrl: await gateway.browserUrl(workspaceId, { userId: 'user-gap' }), expiresAt: new Date(Date.now() + 60_000).toISOString() };
      },
      createSocket: (url) => (socket = new WebSocket(url, { origin: ORIGIN })),
      allowInsecureLoopback: true,
      requestTimeoutMs: 60_000,
    });
    const gaps: Array<{ from: number; through: number }> = [];
    const errors: unknown[] = [];
    let readies = 0;
    client.on('gap', (notice) => gaps.push(notice as { from: number; through: number }));
    client.on('error', (error) => errors.push(error));
    client.on('ready', () => (readies += 1));
    try {
      await client.connect();
      await client.threads.open(THREAD_ID);
      for (let sequence = 0; sequence < 5; sequence += 1) peer.send(frames.event(workspaceId, sequence));
      await waitUntil(() => client.cursor === 4, { what: 'the client cursor at 4' });

      let reopen: () => void = () => undefined;
      gate = new Promise((resolve) => (reopen = resolve));
      const before = inboundEvents(gateway);
      socket?.terminate();
      for (let sequence = 5; sequence < 10_105; sequence += 1) peer.send(frames.event(workspaceId, sequence, SMALL(sequence)));
      await waitUntil(() => inboundEvents(gateway) - before >= 10_100, { what: 'every frame at the gateway', timeoutMs: 60_000 });
      reopen();
      await waitUntil(() => client.cursor === 10_104, { what: 'the client cursor at the head', timeoutMs: 60_000 });
      expect(gaps[0]).toMatchObject({ from: 5, through: 104 });
      expect(snapshots.filter((method) => method === 'thread.snapshot').length).toBeGreaterThanOrEqual(1);
      // One reconnect (the one the test made): the catch-up never ended the session.
      expect(readies).toBe(2);
      expect(client.state).toBe('ready');
    } finally {
      client.close();
    }
  }, 240_000);
});

describe('a paced catch-up that starts with a gap and goes on with the frames the ring holds', () => {
  let gateway: TestRelay;

  beforeAll(async () => {
    // A ring of 200 frames: a browser 300 frames behind gets a gap for the first 100, then the 200 held ones.
    // At 60 KB each those are 12 MB, many times the low-water mark (a quarter of 1 MiB) and more than the
    // loopback's kernel buffers, so the catch-up goes out in many slices with waits between them.
    gateway = await startTestRelay({
      dataPlane: { RELAY_FRAMES_RETENTION_FRAMES: '200', RELAY_FIRST_ACK_TIMEOUT_MS: '60000', RELAY_WS_SEND_HIGH_WATER_BYTES: String(HIGH_WATER) },
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
  });

  it('sends one gap for the frames it no longer holds, then each frame it holds once and in order, then live frames', async () => {
    const large = 'x'.repeat(60 * 1024);
    const { session, workspaceId, peer } = await reconnectAfter(gateway, 300, () => large);
    const stream = () =>
      session.received
        .filter((frame) => frame.type === 'runtime.gap' || frame.type === 'runtime.event')
        .map((frame) => (frame.type === 'runtime.gap' ? `gap ${String(frame['fromRelaySequence'])}…${String(frame['throughRelaySequence'])}` : frame['relaySequence']));
    expect(stream()).toEqual(['gap 5…104', ...Array.from({ length: 200 }, (_, index) => index + 105)]);
    expect(session.ofType('session.error')).toEqual([]);
    expect(session.ws.readyState).toBe(WebSocket.OPEN);
    // Live frames follow the catch-up, once.
    peer.send(frames.event(workspaceId, 305));
    await session.waitFor((frame) => frame['relaySequence'] === 305, 'the live frame after the catch-up');
    expect(stream().slice(-2)).toEqual([304, 305]);
  }, 180_000);
});

describe('a large redelivery of retained interactions', () => {
  let gateway: TestRelay;

  beforeAll(async () => {
    // Retention large enough for 1,000 requests of about 60 KiB (60 MiB, 60 times the send high-water mark).
    gateway = await startTestRelay({
      dataPlane: {
        RELAY_FIRST_ACK_TIMEOUT_MS: '60000',
        RELAY_WS_SEND_HIGH_WATER_BYTES: String(HIGH_WATER),
        RELAY_RETAINED_INTERACTIONS_BYTES: String(128 * 1024 * 1024),
      },
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
  });

  /** A schema-valid user-input request of about 65 KiB: three choices of 40 options, each with a long description. */
  const largeRequest = (workspaceId: string, relaySequence: number) => ({
    type: 'interaction.request',
    workspaceId,
    relaySequence,
    interactionId: `00000000-0000-4000-8000-${String(relaySequence).padStart(12, '0')}`,
    threadId: THREAD_ID,
    turnId: TURN_ID,
    expiresAt: '2099-01-01T00:00:00.000Z',
    sensitivity: 'normal',
    method: 'userInput.request',
    projection: {
      controls: [0, 1, 2].map((control) => ({
        type: 'choice',
        id: `choice-${control}`,
        label: `Choice ${control}`,
        required: false,
        multiple: false,
        options: Array.from({ length: 40 }, (_, option) => ({ id: `option-${option}`, label: `Option ${option}`, description: 'z'.repeat(500) })),
      })),
    },
  });

  it('redelivers 1,000 requests of 60 KiB to a new session paced by what it reads: each once, in order, still connected', async () => {
    const { workspaceId, peer } = await onlineCompanion(gateway);
    const inbound = () => gateway.dataPlane.metrics.registry.value('relay_frames_total', { direction: 'inbound', type: 'interaction.request' });
    const before = inbound();
    for (let sequence = 0; sequence < 1_000; sequence += 1) peer.send(largeRequest(workspaceId, sequence));
    await waitUntil(() => inbound() - before >= 1_000, { what: 'every request at the gateway', timeoutMs: 120_000 });
    await waitUntil(() => gateway.dataPlane.metrics.registry.value('relay_retained_interactions') >= 1_000, { what: 'every request retained' });

    const session = track(await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId), ORIGIN));
    const sequences: number[] = [];
    let largest = 0;
    session.ws.on('message', (data) => {
      const text = String(data);
      const frame = JSON.parse(text) as { type: string; relaySequence?: number };
      if (frame.relaySequence === undefined) return;
      sequences.push(frame.relaySequence);
      largest = Math.max(largest, Buffer.byteLength(text));
    });
    // The first ACK comes while the redelivery is still going out: the catch-up from −1 follows it and repeats none.
    session.send(frames.ack(workspaceId, -1));
    await waitUntil(() => sequences.length >= 1_000 || session.closeCode !== undefined, { what: 'the whole redelivery', timeoutMs: 120_000 });
    expect(session.ofType('session.error')).toEqual([]);
    expect(session.closeCode).toBeUndefined();
    expect(largest).toBeGreaterThan(60 * 1024);
    peer.send(frames.event(workspaceId, 1_000));
    await waitUntil(() => sequences.includes(1_000), { what: 'the live frame after the redelivery' });
    expect(sequences).toEqual(Array.from({ length: 1_001 }, (_, index) => index));
    expect(session.ws.readyState).toBe(WebSocket.OPEN);
  }, 300_000);
});
