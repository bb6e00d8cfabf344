import type { EventBus } from '@trustmesh/platform-bus';
import type { EventEnvelope } from '@trustmesh/platform-events';

import { BatchingPublisher } from './batching-publisher';
import { DataPlaneMetrics } from './data-plane.metrics';
import { FRAMES_SEQUENCED, RESPONSE_ROUTED, type FramesSequencedData } from './frames-bus.records';

/** The publisher's side of the bus port: what each publish call carried. */
function recordingBus(): EventBus & { calls: EventEnvelope[][] } {
  const calls: EventEnvelope[][] = [];
  return {
    adapter: 'local',
    calls,
    publish: async (_topic, envelopes) => {
      calls.push([...envelopes]);
    },
    subscribe: () => Promise.reject(new Error('not used')),
    health: () => Promise.reject(new Error('not used')),
    subscriptions: () => [],
    close: async () => undefined,
  };
}

function publisher(
  bus: EventBus,
  extra: { maxEnvelopesPerPublish?: number; maxQueuedBytes?: number; maxQueued?: number; metrics?: DataPlaneMetrics; events?: string[] } = {},
): BatchingPublisher {
  const sequences = (records: ReadonlyArray<{ data: unknown }>) => records.map((record) => (record.data as { item: { relaySequence: number } }).item.relaySequence).join(',');
  return new BatchingPublisher({
    ...(extra.maxEnvelopesPerPublish !== undefined ? { maxEnvelopesPerPublish: extra.maxEnvelopesPerPublish } : {}),
    bus,
    topic: 'relay.workspace-frames.v1',
    producer: 'relay-gateway@test',
    origin: 'replica-a.1',
    batchFrames: 500,
    lingerMs: 1,
    maxQueued: extra.maxQueued ?? 10_000,
    maxQueuedBytes: extra.maxQueuedBytes ?? 64 * 1024 * 1024,
    metrics: extra.metrics ?? new DataPlaneMetrics(),
    logger: { log: () => undefined },
    onPublished: (records) => extra.events?.push(`published ${sequences(records)}`),
    onDropped: (records) => extra.events?.push(`dropped ${sequences(records)}`),
  });
}

const frame = (relaySequence: number, text = `{"relaySequence":${relaySequence}}`) => ({ relaySequence, text, wire: '1.2' as const, at: 1 });
const summary = (envelopes: EventEnvelope[]) =>
  envelopes.map((envelope) =>
    envelope.eventType === FRAMES_SEQUENCED
      ? `${envelope.streamId}:${(envelope.data as FramesSequencedData).epoch}:${(envelope.data as FramesSequencedData).items.map((item) => ('relaySequence' in item ? item.relaySequence : 'gap')).join(',')}`
      : `${envelope.streamId}:${envelope.eventType}`,
  );

describe('BatchingPublisher', () => {
  it('sends one envelope per workspace and epoch for a flush of interleaved workspaces, each in order', async () => {
    const bus = recordingBus();
    const out = publisher(bus);
    for (let i = 0; i < 4; i += 1) {
      out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(i) });
      out.enqueue('w2', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(i) });
    }
    await out.drain(5_000);
    expect(bus.calls).toHaveLength(1);
    expect(summary(bus.calls[0] ?? [])).toEqual(['w1:e1:0,1,2,3', 'w2:e1:0,1,2,3']);
    expect(bus.calls[0]?.map((envelope) => envelope.streamVersion)).toEqual([1, 1]);
  });

  it('splits a flush into publish calls of at most maxEnvelopesPerPublish messages, in order; a failed one is retried with what follows it', async () => {
    const calls: string[][] = [];
    let failOnce = true;
    const bus = {
      ...recordingBus(),
      publish: async (_topic: string, envelopes: readonly EventEnvelope[]) => {
        if (calls.length === 1 && failOnce) {
          failOnce = false;
          throw new Error('database busy');
        }
        calls.push(summary([...envelopes]));
      },
    };
    const out = publisher(bus, { maxEnvelopesPerPublish: 2 });
    for (let i = 0; i < 2; i += 1) for (const workspace of ['w1', 'w2', 'w3', 'w4', 'w5']) out.enqueue(workspace, FRAMES_SEQUENCED, { epoch: 'e1', item: frame(i) });
    await out.drain(5_000);
    expect(calls[0]).toEqual(['w1:e1:0,1', 'w2:e1:0,1']);
    // The second call failed: nothing of it or after it was lost, duplicated or reordered.
    expect(calls.slice(1).flat()).toEqual(['w3:e1:0,1', 'w4:e1:0,1', 'w5:e1:0,1']);
    expect(calls.every((call) => call.length <= 2)).toBe(true);
    expect(out.pending).toBe(0);
  });

  it('keeps a workspace\'s other records and epochs between its frames', async () => {
    const bus = recordingBus();
    const out = publisher(bus);
    out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(0) });
    out.enqueue('w2', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(0) });
    out.enqueue('w1', RESPONSE_ROUTED, { origin: 'replica-a.1' });
    out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(1) });
    out.enqueue('w2', FRAMES_SEQUENCED, { epoch: 'e2', item: frame(0) });
    out.enqueue('w2', FRAMES_SEQUENCED, { epoch: 'e2', item: frame(1) });
    out.enqueue('w2', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(9) });
    await out.drain(5_000);
    const envelopes = bus.calls.flat();
    expect(summary(envelopes)).toEqual(['w1:e1:0', 'w2:e1:0', `w1:${RESPONSE_ROUTED}`, 'w1:e1:1', 'w2:e2:0,1', 'w2:e1:9']);
    // Per workspace, stream versions follow the order of the records.
    expect(envelopes.filter((envelope) => envelope.streamId === 'w1').map((envelope) => envelope.streamVersion)).toEqual([1, 2, 3]);
  });

  it('starts another envelope when one would carry more than 256 KiB of frame text', async () => {
    const bus = recordingBus();
    const out = publisher(bus);
    const big = 'x'.repeat(100 * 1024);
    for (let i = 0; i < 5; i += 1) out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(i, big) });
    await out.drain(5_000);
    expect(summary(bus.calls.flat())).toEqual(['w1:e1:0,1', 'w1:e1:2,3', 'w1:e1:4']);
  });

  it('bounds the queue by bytes of frame text, not only by count: the oldest are given up during an outage', async () => {
    let down = true;
    const bus = {
      ...recordingBus(),
      publish: async () => {
        if (down) throw new Error('broker unavailable');
      },
    };
    const metrics = new DataPlaneMetrics();
    const out = publisher(bus, { maxQueuedBytes: 300 * 1024, metrics });
    const big = 'x'.repeat(100 * 1024);
    for (let i = 0; i < 10; i += 1) out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(i, big) });
    expect(out.pending).toBe(3);
    expect(out.pendingBytes).toBeLessThanOrEqual(300 * 1024);
    expect(metrics.registry.value('relay_bus_queue_drops_total', { topic: 'relay.workspace-frames.v1' })).toBe(7);
    down = false;
    await out.drain(10_000);
    expect(out.pendingBytes).toBe(0);
  });

  it('reports records the bound gave up as dropped once they are certainly lost, before any later record is reported published', async () => {
    // Each publish waits for the test to let it end (ok or failed).
    const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
    const bus = {
      ...recordingBus(),
      publish: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
    };
    const events: string[] = [];
    const out = publisher(bus, { maxQueued: 2, events });
    out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(0) });
    out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(1) });
    await waitFor(() => pending.length === 1);
    // 0 and 1 are being published; the bound gives them up from the queue: not lost yet.
    out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(2) });
    out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(3) });
    expect(events).toEqual([]);
    pending.shift()?.resolve();
    await waitFor(() => pending.length === 1);
    expect(events).toEqual(['published 0,1']);
    // 2 and 3 are being published and fail; meanwhile 4 and 5 push them out of the queue: they are lost.
    out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(4) });
    out.enqueue('w1', FRAMES_SEQUENCED, { epoch: 'e1', item: frame(5) });
    pending.shift()?.reject(new Error('broker unavailable'));
    await waitFor(() => pending.length === 1);
    expect(events).toEqual(['published 0,1', 'dropped 2,3']);
    pending.shift()?.resolve();
    await waitFor(() => out.pending === 0);
    expect(events).toEqual(['published 0,1', 'dropped 2,3', 'published 4,5']);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries += 1) {
    if (tries > 2_000) throw new Error('condition not met');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
