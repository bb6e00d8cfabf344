import { ReplayBuffer } from './replay-buffer';

const frame = (sequence: number, bytes = 10) => ({ sequence, text: `{"s":${sequence}}`, bytes });
const filled = (count: number, limits = {}) => {
  const buffer = new ReplayBuffer(limits);
  for (let sequence = 0; sequence < count; sequence += 1) buffer.append(frame(sequence));
  return buffer;
};
const sequences = (buffer: ReplayBuffer, after: number) => buffer.replay(after).frames.map((entry) => entry.sequence);

describe('the replay buffer (§6)', () => {
  it('starts empty with prunedThrough −1', () => {
    const buffer = new ReplayBuffer();
    expect([buffer.prunedThrough, buffer.highestAssigned, buffer.size, buffer.bytes]).toEqual([-1, -1, 0, 0]);
    expect(buffer.replay(-1)).toEqual({ frames: [] });
  });

  it('takes sequences only in order', () => {
    const buffer = filled(2);
    expect(() => buffer.append(frame(5))).toThrow(RangeError);
    expect(() => buffer.append(frame(1))).toThrow(RangeError);
  });

  it('replays retained frames above `after`, in order, with no gap while nothing was dropped', () => {
    const buffer = filled(5);
    expect(sequences(buffer, -1)).toEqual([0, 1, 2, 3, 4]);
    expect(sequences(buffer, 2)).toEqual([3, 4]);
    expect(buffer.replay(2).gap).toBeUndefined();
    expect(sequences(buffer, 4)).toEqual([]);
  });

  it('acknowledge(n) drops frames ≤ n and records prunedThrough', () => {
    const buffer = filled(5);
    buffer.acknowledge(2);
    expect(buffer.prunedThrough).toBe(2);
    expect(sequences(buffer, -1)).toEqual([3, 4]);
    expect(buffer.bytes).toBe(20);
  });

  it('ignores an ACK above the highest assigned sequence, and stale ACKs', () => {
    const buffer = filled(3);
    buffer.acknowledge(3);
    expect([buffer.prunedThrough, buffer.size]).toEqual([-1, 3]);
    buffer.acknowledge(1);
    buffer.acknowledge(0);
    expect([buffer.prunedThrough, buffer.size]).toEqual([1, 1]);
  });

  it('drops the oldest frames beyond the frame limit and reports the gap on replay', () => {
    const buffer = filled(8, { maxFrames: 5 });
    expect(buffer.size).toBe(5);
    expect(buffer.prunedThrough).toBe(2);
    expect(buffer.replay(-1)).toEqual({ gap: { from: 0, through: 2 }, frames: expect.any(Array) });
    expect(sequences(buffer, -1)).toEqual([3, 4, 5, 6, 7]);
    // An ACK inside the dropped range still needs a gap for the rest of it.
    expect(buffer.replay(0).gap).toEqual({ from: 1, through: 2 });
    // An ACK at prunedThrough needs none.
    expect(buffer.replay(2).gap).toBeUndefined();
  });

  it('drops the oldest frames beyond the byte limit', () => {
    const buffer = new ReplayBuffer({ maxBytes: 25 });
    [0, 1, 2].forEach((sequence) => buffer.append(frame(sequence)));
    expect(buffer.size).toBe(2);
    expect(buffer.bytes).toBe(20);
    expect(buffer.prunedThrough).toBe(0);
  });

  it('prunedThrough is the highest removed by ACK or overflow', () => {
    const buffer = filled(4, { maxFrames: 3 });
    expect(buffer.prunedThrough).toBe(0);
    buffer.acknowledge(2);
    expect(buffer.prunedThrough).toBe(2);
    buffer.append(frame(4));
    buffer.append(frame(5));
    buffer.append(frame(6));
    buffer.append(frame(7));
    expect(buffer.prunedThrough).toBe(4);
    expect(buffer.replay(2).gap).toEqual({ from: 3, through: 4 });
  });

  it('uses the default limits of 10 000 frames and 32 MiB', () => {
    const buffer = filled(10_050);
    expect(buffer.size).toBe(10_000);
    expect(buffer.prunedThrough).toBe(49);
    expect(sequences(buffer, 10_040)).toEqual([10_041, 10_042, 10_043, 10_044, 10_045, 10_046, 10_047, 10_048, 10_049]);
  });
});
