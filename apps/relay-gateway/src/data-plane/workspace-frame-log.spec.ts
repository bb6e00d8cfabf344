import { WorkspaceFrameLog, type LoggedFrame } from './workspace-frame-log';

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
    expect(log.contiguous(-1, 1)?.map((entry) => entry.relaySequence)).toEqual([0, 1]);
    expect(log.contiguous(0, 3)).toBeUndefined();
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
