import { randomUUID } from 'node:crypto';

import { ByteBudget, relieve } from './byte-budget';
import { text11Of, WorkspaceFrameLog, type LoggedFrame } from './workspace-frame-log';

const frame = (relaySequence: number, text = `frame-${relaySequence}`, at = 0): LoggedFrame => ({
  relaySequence,
  text,
  wire: '1.2',
  type: 'runtime.event',
  bytes: text.length,
  at,
});

const limits = { frames: 100, bytes: 1_000_000, ms: 60_000 };

describe('WorkspaceFrameLog', () => {
  it('classifies a first frame as a new epoch, then appends above the head', () => {
    const log = new WorkspaceFrameLog(limits);
    expect(log.classify(0, 'frame-0')).toBe('new-epoch');
    log.startEpoch('e1');
    log.append(frame(0), 0);
    expect(log.classify(1, 'frame-1')).toBe('append');
  });

  it('tells a replay (same bytes) from a restart at 0 (other bytes, or no longer retained)', () => {
    const log = new WorkspaceFrameLog({ ...limits, frames: 2 });
    log.startEpoch('e1');
    for (const sequence of [0, 1, 2, 3]) log.append(frame(sequence), 0);
    expect(log.classify(3, 'frame-3')).toBe('replay');
    expect(log.classify(3, 'other')).toBe('new-epoch');
    expect(log.classify(0, 'frame-0')).toBe('new-epoch'); // 0 pruned: a restarted Companion
    expect(log.classify(1, 'frame-1')).toBe('replay'); // pruned, not 0: a replay of an older frame
  });

  it('cannot compare sealed frames: at or below the head, 0 is a restart and anything else a replay', () => {
    const log = new WorkspaceFrameLog(limits);
    log.startEpoch('e1');
    for (const sequence of [0, 1, 2]) log.append(frame(sequence), 0);
    expect(log.classify(1, 'resealed', true)).toBe('replay');
    expect(log.classify(0, 'resealed', true)).toBe('new-epoch');
  });

  it('catches up from a cursor with gaps for what retention dropped and for Companion gaps', () => {
    const log = new WorkspaceFrameLog({ ...limits, frames: 3 });
    log.startEpoch('e1');
    for (const sequence of [0, 1, 2, 3, 4]) log.append(frame(sequence), 0);
    log.noteGap(6);
    log.append(frame(7), 0);
    expect(log.catchUp(-1, 0)).toEqual([
      { kind: 'gap', from: 0, through: 2 },
      { kind: 'frame', frame: frame(3) },
      { kind: 'frame', frame: frame(4) },
      { kind: 'gap', from: 5, through: 6 },
      { kind: 'frame', frame: frame(7) },
    ]);
  });

  it('reports a gap up to the head when the last frames were never received', () => {
    const log = new WorkspaceFrameLog(limits);
    log.startEpoch('e1');
    log.append(frame(0), 0);
    log.noteGap(5);
    expect(log.catchUp(0, 0)).toEqual([{ kind: 'gap', from: 1, through: 5 }]);
    expect(log.catchUp(5, 0)).toEqual([]);
  });

  it('prunes by count, bytes and age', () => {
    const byBytes = new WorkspaceFrameLog({ ...limits, bytes: 20 });
    byBytes.startEpoch('e');
    for (const sequence of [0, 1, 2, 3]) byBytes.append(frame(sequence, 'x'.repeat(8)), 0);
    expect(byBytes.size).toBe(2);
    const byAge = new WorkspaceFrameLog({ ...limits, ms: 1_000 });
    byAge.startEpoch('e');
    byAge.append(frame(0, 'a', 0), 0);
    byAge.append(frame(1, 'b', 2_000), 2_000);
    expect(byAge.size).toBe(1);
    expect(byAge.get(1)?.text).toBe('b');
  });

  it('starts a new epoch empty', () => {
    const log = new WorkspaceFrameLog(limits);
    log.startEpoch('e1');
    log.append(frame(0), 0);
    log.startEpoch('e2');
    expect(log.head).toBe(-1);
    expect(log.size).toBe(0);
    expect(log.epoch).toBe('e2');
  });

  it('finds contiguous retained frames, or nothing when one is missing', () => {
    const log = new WorkspaceFrameLog(limits);
    log.startEpoch('e');
    for (const sequence of [0, 1, 3]) log.append(frame(sequence), 0);
    expect(log.holdsContiguous(-1, 1)).toBe(true);
    expect(log.holdsContiguous(0, 3)).toBe(false);
  });

  it('hands a catch-up out in slices: each from the last item taken, the trailing gap only in the last one', () => {
    const log = new WorkspaceFrameLog(limits);
    log.startEpoch('e1');
    for (const sequence of [0, 1, 3, 4]) log.append(frame(sequence), 0);
    log.noteGap(6);
    const first = log.catchUp(-1, 0, 2);
    expect(first.map((item) => (item.kind === 'gap' ? `gap ${item.from}-${item.through}` : item.frame.relaySequence))).toEqual([0, 1]);
    // A gap and the frame after it come together.
    const second = log.catchUp(1, 0, 2);
    expect(second.map((item) => (item.kind === 'gap' ? `gap ${item.from}-${item.through}` : item.frame.relaySequence))).toEqual(['gap 2-2', 3]);
    const third = log.catchUp(3, 0, 2);
    expect(third.map((item) => (item.kind === 'gap' ? `gap ${item.from}-${item.through}` : item.frame.relaySequence))).toEqual([4, 'gap 5-6']);
    expect([...first, ...second, ...third]).toEqual(log.catchUp(-1, 0));
  });
});

describe('WorkspaceFrameLog and the process budget', () => {
  const limits = { frames: 1_000, bytes: 1_000_000, ms: 60_000 };
  const entry = (relaySequence: number, bytes = 100) => ({ relaySequence, text: `f${relaySequence}`, wire: '1.2' as const, type: 'runtime.event', bytes, at: 0 });

  it('counts its bytes in the shared budget, gives them back when pruned, cut or restarted', () => {
    const budget = new ByteBudget(10_000);
    const a = new WorkspaceFrameLog(limits, budget);
    const b = new WorkspaceFrameLog({ ...limits, frames: 2 }, budget);
    a.startEpoch('e1');
    b.startEpoch('e1');
    for (let sequence = 0; sequence < 5; sequence += 1) {
      a.append(entry(sequence), 0);
      b.append(entry(sequence), 0);
    }
    expect(budget.used).toBe(500 + 200);
    a.shrinkTo(250);
    expect(a.size).toBe(2);
    expect(a.catchUp(-1, 0)[0]).toEqual({ kind: 'gap', from: 0, through: 2 });
    expect(budget.used).toBe(200 + 200);
    a.startEpoch('e2');
    expect(budget.used).toBe(200);
  });

  it('lets the process bound cut the largest ring first', () => {
    const budget = new ByteBudget(1_000);
    const big = new WorkspaceFrameLog(limits, budget);
    const small = new WorkspaceFrameLog(limits, budget);
    big.startEpoch('e1');
    small.startEpoch('e1');
    for (let sequence = 0; sequence < 10; sequence += 1) big.append(entry(sequence), 0);
    small.append(entry(0), 0);
    small.append(entry(1), 0);
    expect(budget.over).toBe(true);
    relieve(budget, [big, small]);
    expect(small.size).toBe(2);
    expect(budget.used).toBeLessThanOrEqual(900);
  });
});

describe('WorkspaceFrameLog storage: frame bytes off the heap', () => {
  it('gives back exactly the text it was given, across chunks, for large frames and any script', () => {
    const log = new WorkspaceFrameLog({ frames: 10_000, bytes: 100_000_000, ms: 60_000 });
    log.startEpoch('e1');
    const texts = Array.from({ length: 400 }, (_, sequence) =>
      sequence % 50 === 7 ? `{"big":"${'x'.repeat(70_000 + sequence)}"}` : `{"n":${sequence},"t":"héllo wörld 日本語 🙂 ${'y'.repeat(sequence * 3)}"}`,
    );
    texts.forEach((text, sequence) => log.append({ relaySequence: sequence, text, wire: '1.2', type: 'runtime.event', bytes: Buffer.byteLength(text), at: sequence }, sequence));
    const caught = log.catchUp(-1, 400).map((item) => (item.kind === 'frame' ? item.frame.text : `gap ${item.from}-${item.through}`));
    expect(caught).toEqual(texts);
    expect(log.bytes).toBe(texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0));
  });

  it('keeps its own copy: changing the entry after append changes nothing retained', () => {
    const log = new WorkspaceFrameLog(limits);
    log.startEpoch('e1');
    const entry: LoggedFrame = { ...frame(0, 'original'), type: 'interaction.request', interactionId: 'i-1', interactionMethod: 'approval.request', expiresAt: 99 };
    log.append(entry, 0);
    entry.text = 'changed';
    entry.interactionId = 'i-2';
    expect(log.get(0)).toEqual({ relaySequence: 0, text: 'original', wire: '1.2', type: 'interaction.request', bytes: 8, at: 0, interactionId: 'i-1', interactionMethod: 'approval.request', expiresAt: 99 });
    expect(log.get(0)).not.toBe(log.get(0));
  });

  it('lets the oldest frames go and still serves the rest whole after many prunes', () => {
    const log = new WorkspaceFrameLog({ frames: 50, bytes: 100_000_000, ms: 60_000 });
    log.startEpoch('e1');
    for (let sequence = 0; sequence < 5_000; sequence += 1) log.append(frame(sequence, `frame-${sequence}-${'z'.repeat(sequence % 97)}`), 0);
    const caught = log.catchUp(4_949, 0).map((item) => (item.kind === 'frame' ? item.frame.text : 'gap'));
    expect(caught).toEqual(Array.from({ length: 50 }, (_, index) => `frame-${4_950 + index}-${'z'.repeat((4_950 + index) % 97)}`));
    expect(log.size).toBe(50);
    expect(log.catchUp(-1, 0)[0]).toEqual({ kind: 'gap', from: 0, through: 4_949 });
  });
});

describe('text11Of: the cached 1.1 copy of a logged frame', () => {
  const ids = { workspaceId: randomUUID(), runtimeInstanceId: randomUUID(), threadId: randomUUID(), turnId: randomUUID() };
  /** A 1.2 `runtime.event`: `tool.completed` with the 1.2-only `appOutput` and `operationId` when `only12`. */
  const event12 = (relaySequence: number, only12: boolean): LoggedFrame => {
    const text = JSON.stringify({
      type: 'runtime.event',
      workspaceId: ids.workspaceId,
      relaySequence,
      event: {
        protocolVersion: '1.1',
        runtimeInstanceId: ids.runtimeInstanceId,
        sequence: relaySequence,
        timestamp: '2026-11-30T10:00:00.000Z',
        threadId: ids.threadId,
        turnId: ids.turnId,
        event: {
          type: 'tool.completed',
          toolCallId: 'call-1',
          agentName: 'agent',
          toolName: 'tool',
          outcome: { kind: 'success' },
          ...(only12 ? { appOutput: { status: 'not_provided' }, operationId: randomUUID() } : {}),
        },
      },
    });
    return { relaySequence, text, wire: '1.2', type: 'runtime.event', bytes: Buffer.byteLength(text), at: 0 };
  };

  it('is not the ring\'s to count: the ring keeps the frame\'s own bytes, and a frame read back downgrades the same', () => {
    const budget = new ByteBudget(10_000_000);
    const log = new WorkspaceFrameLog({ ...limits, frames: 1 }, budget);
    log.startEpoch('e1');
    const entry = event12(0, true);
    const textBytes = entry.bytes;
    log.append(entry, 0);
    const { text, invalid } = text11Of(entry, [log]);
    expect(invalid).toBe(false);
    expect(text).not.toContain('appOutput');
    // The copy is cached on the live entry (fan-out), not in the ring.
    expect(entry.text11).toBe(text);
    expect(log.bytes).toBe(textBytes);
    expect(budget.used).toBe(textBytes);
    const readBack = log.get(0) as LoggedFrame;
    expect(readBack.text11).toBeUndefined();
    expect(text11Of(readBack, [log]).text).toBe(text);
    expect(budget.used).toBe(textBytes);
    // The frame leaves the ring (count bound): its bytes are given back.
    log.append(event12(1, false), 0);
    expect(log.bytes).toBe(log.get(1)?.bytes);
    expect(budget.used).toBe(log.bytes);
  });

  it('shares the original text when the downgrade changes nothing: no second copy, nothing more counted', () => {
    const budget = new ByteBudget(10_000_000);
    const log = new WorkspaceFrameLog(limits, budget);
    log.startEpoch('e1');
    const entry = event12(0, false);
    const textBytes = entry.bytes;
    log.append(entry, 0);
    expect(text11Of(entry, [log]).text).toBe(entry.text);
    expect(entry.text11).toBe(entry.text);
    expect(log.bytes).toBe(textBytes);
    expect(budget.used).toBe(textBytes);
  });
});
