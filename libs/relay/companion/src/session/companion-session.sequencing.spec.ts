/**
 * §6 through the session: numbering, the ACK table, replay on reconnect, overflow gaps, generations.
 */
import { deferred, everyRawEvent, rawEvent, STREAM, WORKSPACE, OTHER_WORKSPACE } from '../testing/scripted-runtime';
import { Harness } from '../testing/session-harness';

const delta = (text: string) => rawEvent({ type: 'message.delta', streamId: STREAM, delta: text });

async function withEvents(count: number, options = {}) {
  const harness = await Harness.started(options);
  for (let index = 0; index < count; index += 1) harness.runtime.emit(delta(`d${index}`));
  await harness.flush();
  return harness;
}

describe('sequencing (§6)', () => {
  it('numbers runtime.event and interaction.* from 0; tool.output, responses, gaps and ACKs take no number', async () => {
    const harness = await Harness.started();
    for (const envelope of everyRawEvent()) harness.runtime.emit(envelope);
    await harness.request('thread.list', { limit: 10 });
    await harness.flush();
    const events = harness.framesOf('runtime.event');
    expect(events.map((frame) => frame['relaySequence'])).toEqual([...Array(everyRawEvent().length - 1).keys()]);
    expect(JSON.stringify(events)).not.toContain('tool.output');
    const response = harness.framesOf('runtime.response')[0]!;
    expect(response).not.toHaveProperty('relaySequence');
    expect(harness.session.stats().nextRelaySequence).toBe(everyRawEvent().length - 1);
  });

  it('numbers frames when they are buffered, also while disconnected', async () => {
    const harness = await Harness.started();
    harness.session.disconnect(harness.generation);
    harness.runtime.emit(delta('offline'));
    expect(harness.session.stats()).toEqual(expect.objectContaining({ nextRelaySequence: 1, bufferedFrames: 1, generation: null }));
    harness.connect();
    await harness.flush();
    expect(harness.sequencesSent()).toEqual([0]);
  });
});

describe('ACK classification (§6 table)', () => {
  it('initial-advance: acked −1, advertised 0, incoming 0 → advance', async () => {
    const harness = await withEvents(1);
    expect(await harness.ack(0)).toEqual({ kind: 'ack', disposition: 'advance' });
    expect(harness.session.stats()).toEqual(expect.objectContaining({ acknowledgedThrough: 0, bufferedFrames: 0, prunedThrough: 0 }));
  });

  it('advance-contiguous-prefix: acked 0, advertised 2, incoming 2 → advance', async () => {
    const harness = await withEvents(3);
    await harness.ack(0);
    expect(await harness.ack(2)).toEqual({ kind: 'ack', disposition: 'advance' });
    expect(harness.session.stats().bufferedFrames).toBe(0);
  });

  it('equal-duplicate-ack: acked 2, advertised 2, incoming 2 → duplicate', async () => {
    const harness = await withEvents(3);
    await harness.ack(2);
    expect(await harness.ack(2)).toEqual({ kind: 'ack', disposition: 'duplicate' });
  });

  it('ack-below-sentinel: incoming −2 fails the schema and is dropped silently', async () => {
    const harness = await withEvents(1);
    expect(await harness.ack(-2)).toEqual({ kind: 'dropped', reason: 'FIELD_RANGE' });
    expect(harness.session.stats().acknowledgedThrough).toBe(-1);
  });

  it('stale (2, 2, 1) → duplicate; the buffer is untouched', async () => {
    const harness = await withEvents(4);
    await harness.ack(2);
    expect(await harness.ack(1)).toEqual({ kind: 'ack', disposition: 'duplicate' });
    expect(harness.session.stats()).toEqual(expect.objectContaining({ acknowledgedThrough: 2, bufferedFrames: 1 }));
  });

  it('beyond advertised (0, 1, 2) → invalid', async () => {
    const harness = await withEvents(2);
    await harness.ack(0);
    expect(await harness.ack(2)).toEqual({ kind: 'ack', disposition: 'invalid' });
    expect(harness.session.stats().acknowledgedThrough).toBe(0);
  });

  it('fractional (0, 1, 0.5) fails the schema and is dropped silently', async () => {
    const harness = await withEvents(2);
    await harness.ack(0);
    expect((await harness.ack(0.5)).kind).toBe('dropped');
    expect(harness.session.stats().acknowledgedThrough).toBe(0);
  });

  it("the browser's first ACK (−1, −1, −1) → duplicate", async () => {
    const harness = await Harness.started();
    expect(await harness.ack(-1)).toEqual({ kind: 'ack', disposition: 'duplicate' });
  });

  it('never covers frames not sent on this connection: advertisedThrough restarts at −1 per generation', async () => {
    const harness = await withEvents(3);
    expect(harness.session.stats().advertisedThrough).toBe(2);
    const blocked = deferred<void>();
    harness.session.connect(() => blocked.promise);
    const second = harness.session.stats().generation!;
    expect(harness.session.stats().advertisedThrough).toBe(-1);
    expect(await harness.session.receive(JSON.stringify({ type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: 2 }), second)).toEqual({
      kind: 'ack',
      disposition: 'invalid',
    });
    blocked.resolve();
  });

  it('ignores ACKs for another workspace and ACKs on a dead generation', async () => {
    const harness = await withEvents(2);
    const first = harness.generation;
    expect(await harness.ack(1, first, OTHER_WORKSPACE)).toEqual({ kind: 'ack', disposition: 'foreign-workspace' });
    harness.connect();
    expect(await harness.ack(1, first)).toEqual({ kind: 'dropped', reason: 'STALE_GENERATION' });
    expect(harness.session.stats().acknowledgedThrough).toBe(-1);
  });
});

describe('reconnect replay (§6)', () => {
  it('replays every unacked frame in order, then live frames; acknowledgedThrough survives reconnects', async () => {
    const harness = await withEvents(5);
    await harness.ack(1);
    harness.session.disconnect(harness.generation);
    const second = harness.connect();
    harness.runtime.emit(delta('live'));
    await harness.flush();
    expect(harness.sequencesSent(second)).toEqual([2, 3, 4, 5]);
    expect(harness.framesOf('runtime.gap', second)).toEqual([]);
    expect(harness.session.stats()).toEqual(expect.objectContaining({ acknowledgedThrough: 1, advertisedThrough: 5 }));
  });

  it('sends the gap first when the buffer rolled over, then the retained frames, then live ones', async () => {
    const harness = await Harness.started({ limits: { replayFrames: 3 } });
    harness.session.disconnect(harness.generation);
    for (let index = 0; index < 6; index += 1) harness.runtime.emit(delta(`d${index}`));
    const second = harness.connect();
    harness.runtime.emit(delta('live'));
    await harness.flush();
    const onSecond = harness.sent.filter((sent) => sent.generation === second).map((sent) => sent.frame);
    expect(onSecond[0]).toEqual({ type: 'runtime.gap', workspaceId: WORKSPACE, fromRelaySequence: 0, throughRelaySequence: 2, recovery: 'thread.snapshot' });
    expect(onSecond.slice(1).map((frame) => frame['relaySequence'])).toEqual([3, 4, 5, 6]);
    // The sent gap raised advertisedThrough, so the browser may ACK through it.
    expect(await harness.ack(2)).toEqual({ kind: 'ack', disposition: 'advance' });
    expect(harness.session.stats().gapsSent).toBe(1);
  });

  it('a gap starts after acknowledgedThrough', async () => {
    const harness = await Harness.started({ limits: { replayFrames: 2 } });
    harness.runtime.emit(delta('a'));
    harness.runtime.emit(delta('b'));
    await harness.flush();
    await harness.ack(0);
    harness.session.disconnect(harness.generation);
    for (let index = 0; index < 4; index += 1) harness.runtime.emit(delta(`d${index}`));
    const second = harness.connect();
    await harness.flush();
    expect(harness.framesOf('runtime.gap', second)).toEqual([expect.objectContaining({ fromRelaySequence: 1, throughRelaySequence: 3 })]);
    expect(harness.sequencesSent(second)).toEqual([4, 5]);
  });

  it('overflows by bytes too', async () => {
    const harness = await Harness.started({ limits: { replayBytes: 600 } });
    harness.session.disconnect(harness.generation);
    for (let index = 0; index < 10; index += 1) harness.runtime.emit(delta('x'.repeat(100)));
    expect(harness.session.stats().bufferedBytes).toBeLessThanOrEqual(600);
    const second = harness.connect();
    await harness.flush();
    const gap = harness.framesOf('runtime.gap', second)[0]!;
    expect(gap['fromRelaySequence']).toBe(0);
    expect(harness.sequencesSent(second)[0]).toBe((gap['throughRelaySequence'] as number) + 1);
  });

  it('a failed send ends the generation; the frame stays buffered for the next one', async () => {
    const harness = await Harness.started();
    const first = harness.generation;
    harness.failSends.add(first);
    harness.runtime.emit(delta('lost'));
    await harness.flush();
    expect(harness.ended).toEqual([{ generation: first, reason: 'send-failed' }]);
    expect(harness.session.stats().generation).toBeNull();
    expect(await harness.ack(0, first)).toEqual({ kind: 'dropped', reason: 'STALE_GENERATION' });
    const second = harness.connect();
    await harness.flush();
    expect(harness.sequencesSent(second)).toEqual([0]);
  });

  it('a relay that stops reading ends the generation once its unsent frames pass the backlog bound; the buffer keeps what it can', async () => {
    const harness = await Harness.started({ limits: { maxSendBacklogBytes: 4_000, replayBytes: 2_000, maxOutboundFrameBytes: 1_000 } });
    const ended: unknown[] = [];
    // A transport whose sends never complete: the relay does not read.
    const stalled = harness.session.connect(() => new Promise<void>(() => undefined), (end) => ended.push(end));
    for (let index = 0; index < 100; index += 1) harness.runtime.emit(delta('x'.repeat(100)));
    expect(ended).toEqual([{ generation: stalled, reason: 'send-backlog' }]);
    expect(harness.session.stats().generation).toBeNull();
    // The next generation replays the bounded buffer: a gap for what it gave up, then the newest frames.
    const next = harness.connect();
    await harness.flush();
    const sequences = harness.sequencesSent(next);
    const gap = harness.framesOf('runtime.gap', next)[0]!;
    expect(sequences.at(-1)).toBe(99);
    expect(gap['throughRelaySequence']).toBe((sequences[0] as number) - 1);
    expect(harness.session.isCurrent(next)).toBe(true);
  });

  it('a new connect supersedes the old generation, whose pending responses are never sent', async () => {
    const harness = await Harness.started();
    const slow = deferred<{ turnId: string }>();
    harness.runtime.startTurnHandler = () => slow.promise;
    const first = harness.generation;
    const pending = harness.request('turn.start', { requestId: 'aaaaaaaa-0000-4000-8000-000000000001', threadId: WORKSPACE, turnId: WORKSPACE, input: { text: 'hi' } });
    await Promise.resolve();
    harness.connect();
    expect(harness.ended).toEqual([{ generation: first, reason: 'superseded' }]);
    slow.resolve({ turnId: WORKSPACE });
    const { result } = await pending;
    expect(result).toEqual(expect.objectContaining({ kind: 'response', sent: false }));
    expect(harness.framesOf('runtime.response')).toEqual([]);
  });

  it('serializes sends: a slow send holds back every later frame of its generation', async () => {
    const harness = await Harness.started();
    harness.session.disconnect(harness.generation);
    const order: string[] = [];
    const gate = deferred<void>();
    let calls = 0;
    const generation = harness.session.connect(async (text) => {
      calls += 1;
      if (calls === 1) await gate.promise;
      order.push(text);
    });
    harness.runtime.emit(delta('first'));
    harness.runtime.emit(delta('second'));
    const response = harness.session.receive(JSON.stringify(harness.requestFrame('thread.list', { limit: 1 })), generation);
    await Promise.resolve();
    expect(order).toEqual([]);
    gate.resolve();
    await response;
    await harness.session.flush();
    expect(order.map((text) => (JSON.parse(text) as { type: string }).type)).toEqual(['runtime.event', 'runtime.event', 'runtime.response']);
  });
});
