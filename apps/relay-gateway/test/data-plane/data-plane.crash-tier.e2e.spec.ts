/**
 * The crash tier: a real gateway process (embedded PGlite) killed with SIGKILL at random points of a stream,
 * again and again, and restarted on the same data dir. A replaying Companion (§6: it keeps what is not
 * acknowledged and re-sends it after each reconnect) streams throughout; a browser applying the stream with
 * the project's §6 algorithm (`StreamSequencer` of @trustmesh/relay-client) reconnects after each restart.
 * Whatever the kill point, the browser's applied stream has no hole the relay did not announce with a gap, no
 * frame applied twice within one stream epoch, and it ends at the Companion's head.
 *
 * Bounded: CRASH_TIER_KILLS kills (default 8), each after 50-600 ms of streaming; the random points come from a
 * seed (CRASH_TIER_SEED, printed on failure) so a failing run can be replayed.
 */
import { createSeededDataDir } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';
import { StreamSequencer, type SequencedFrame, type SequencerNotice } from '@trustmesh/relay-client';

import { enrollThrough, startGatewayChild, statusFrom, ticketFrom, type GatewayChild } from './support/gateway.child';
import { frames } from './support/frames';
import { browser, type Frame, type TestPeer } from './support/peers';
import { ReplayingCompanion } from './support/replaying-companion';

const ORIGIN = 'https://app.example';
const KILLS = Number(process.env['CRASH_TIER_KILLS'] ?? 8);
const SEED = Number(process.env['CRASH_TIER_SEED'] ?? Date.now() % 1_000_000);

/** A small deterministic PRNG (mulberry32): the kill points of a run follow from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A browser that applies the stream as §6 says, across reconnects, and records what it applied. */
class ApplyingBrowser {
  readonly applied: Array<{ epoch: number; sequence: number }> = [];
  readonly notices: SequencerNotice[] = [];
  readonly problems: string[] = [];
  private socket: TestPeer | undefined;
  readonly sequencer: StreamSequencer<SequencedFrame>;

  constructor(private readonly workspaceId: string) {
    this.sequencer = new StreamSequencer<SequencedFrame>(
      {
        apply: (frame) => this.applied.push({ epoch: this.sequencer.epoch, sequence: frame.relaySequence }),
        ack: (through) => {
          if (this.socket?.ws.readyState === this.socket?.ws.OPEN) this.socket?.send(frames.ack(workspaceId, through));
        },
        // No open threads: a recovery completes at once.
        snapshotOpenThreads: async () => undefined,
        recoveryFailed: (error) => this.problems.push(`recovery failed: ${String(error)}`),
        protocolError: (reason) => this.problems.push(`protocol error: ${reason}`),
        notify: (notice) => this.notices.push(notice),
      },
      { workspaceId },
    );
  }

  async connect(gateway: GatewayChild): Promise<TestPeer> {
    const peer = await browser(gateway.wsUrl, await ticketFrom(gateway, this.workspaceId, 'user-crash', ORIGIN), ORIGIN);
    this.socket = peer;
    const handle = (frame: Frame) => {
      if (frame.type === 'runtime.event') this.sequencer.receiveFrame(frame as unknown as SequencedFrame);
      else if (frame.type === 'runtime.gap') {
        this.sequencer.receiveGap(frame as unknown as { workspaceId: string; fromRelaySequence: number; throughRelaySequence: number });
      } else if (frame.type === 'session.error') this.problems.push(`session.error ${String(frame['code'])}`);
    };
    // session.ready is already in; anything after it is handled in order.
    const already = peer.received.length;
    this.sequencer.sessionReady(this.workspaceId);
    for (const frame of peer.received.slice(1, already)) handle(frame);
    peer.ws.on('message', (data) => handle(JSON.parse(String(data)) as Frame));
    return peer;
  }
}

it(`survives ${KILLS} SIGKILLs at random points of a stream with no hole without a gap and no frame applied twice`, async () => {
  const next = random(SEED);
  const dir = await createSeededDataDir('relay-gateway-crash-tier');
  const peers: TestPeer[] = [];
  let gateway: GatewayChild | undefined;
  let streaming: NodeJS.Timeout | undefined;
  const start = async () =>
    (gateway = await startGatewayChild({ TRUSTMESH_DATA_DIR: dir.dataDir, RELAY_REPLICA_ID: 'crash-tier', RELAY_FIRST_ACK_TIMEOUT_MS: '60000' }));
  try {
    let current = await start();
    const device = await enrollThrough(current);
    const { workspaceId } = device;
    const sim = new ReplayingCompanion(device, (sequence) => `f-${sequence}`);
    const reader = new ApplyingBrowser(workspaceId);
    await sim.connect(current.wsUrl);
    await waitUntil(async () => (await statusFrom(current, workspaceId)).status === 'online', { what: 'the workspace online' });
    peers.push(await reader.connect(current));
    // About 100 frames a second, sent whether or not the gateway is up (the Companion buffers them).
    streaming = setInterval(() => sim.send(2), 20);

    for (let kill = 0; kill < KILLS; kill += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(next() * 550)));
      await current.kill();
      for (const peer of peers.splice(0)) peer.close();
      sim.close();
      current = await start();
      // Either may come back first.
      if (next() < 0.5) {
        await sim.connect(current.wsUrl);
        peers.push(await reader.connect(current));
      } else {
        peers.push(await reader.connect(current));
        await sim.connect(current.wsUrl);
      }
    }
    clearInterval(streaming);
    streaming = undefined;
    sim.send(1);
    const last = sim.head;
    await waitUntil(() => reader.sequencer.cursor === last, { what: `the browser at the Companion's head ${last} (seed ${SEED})`, timeoutMs: 60_000 });

    const context = `seed ${SEED}, ${reader.applied.length} frames applied, resets ${reader.notices.filter((notice) => notice.type === 'reset').length}`;
    expect({ context, problems: reader.problems }).toEqual({ context, problems: [] });
    expect({ context, holes: reader.notices.filter((notice) => notice.type === 'hole') }).toEqual({ context, holes: [] });
    const twice: string[] = [];
    const seen = new Set<string>();
    for (const { epoch, sequence } of reader.applied) {
      const key = `${epoch}:${sequence}`;
      if (seen.has(key)) twice.push(key);
      seen.add(key);
    }
    expect({ context, twice }).toEqual({ context, twice: [] });
  } finally {
    if (streaming) clearInterval(streaming);
    for (const peer of peers) peer.close();
    await gateway?.kill();
    await dir.remove();
  }
}, 600_000);
