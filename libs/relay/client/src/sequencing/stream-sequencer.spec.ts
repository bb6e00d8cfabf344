import { classifyAck, type AckDisposition } from '@trustmesh/relay-protocol';

import { StreamSequencer, type SequencedFrame, type SequencerNotice, type SnapshotReason } from './stream-sequencer';

const WS = 'ws-1';

interface Deferred {
  reason: SnapshotReason;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * A fake port plus a model of the Companion's side of the ACK rules (§6): every ACK the browser sends is
 * classified with the protocol's own `classifyAck` against what this connection advertised.
 */
function harness(options: { workspaceId?: string; maxBufferedFrames?: number } = {}) {
  const applied: number[] = [];
  const acks: number[] = [];
  const verdicts: AckDisposition[] = [];
  const notices: SequencerNotice[] = [];
  const snapshots: Deferred[] = [];
  const recoveryFailures: unknown[] = [];
  const protocolErrors: string[] = [];
  const companion = { acknowledgedThrough: -1, advertisedThrough: -1 };
  const readyAcks = new Set<number>();
  const sequencer = new StreamSequencer<SequencedFrame>(
    {
      apply: (frame) => applied.push(frame.relaySequence),
      ack: (through) => {
        acks.push(through);
        const verdict = classifyAck(companion, through);
        verdicts.push(verdict);
        if (verdict === 'advance') companion.acknowledgedThrough = through;
      },
      snapshotOpenThreads: (reason) =>
        new Promise<void>((resolve, reject) => {
          snapshots.push({ reason, resolve, reject });
        }),
      recoveryFailed: (error) => recoveryFailures.push(error),
      protocolError: (reason) => protocolErrors.push(reason),
      notify: (notice) => notices.push(notice),
    },
    options,
  );
  const frame = (relaySequence: number, workspaceId = WS): SequencedFrame => {
    companion.advertisedThrough = Math.max(companion.advertisedThrough, relaySequence);
    return { type: 'runtime.event', workspaceId, relaySequence };
  };
  return {
    sequencer,
    applied,
    acks,
    verdicts,
    notices,
    snapshots,
    recoveryFailures,
    protocolErrors,
    companion,
    /** A relay delivering frames of this connection, in the given order. */
    deliver: (...sequences: number[]) => sequences.forEach((s) => sequencer.receiveFrame(frame(s))),
    gap: (from: number, through: number) => {
      companion.advertisedThrough = Math.max(companion.advertisedThrough, through);
      sequencer.receiveGap({ workspaceId: WS, fromRelaySequence: from, throughRelaySequence: through });
    },
    /** A new connection: the Companion's advertised prefix starts again at −1 (acknowledged is kept). */
    newConnection: () => {
      companion.advertisedThrough = -1;
      readyAcks.add(acks.length);
      sequencer.sessionReady(WS);
    },
    /** A Companion restart: its counter and its ACK state start over. */
    companionRestart: () => {
      companion.acknowledgedThrough = -1;
      companion.advertisedThrough = -1;
    },
    settle: async () => {
      for (let turn = 0; turn < 5; turn += 1) await Promise.resolve();
    },
    types: () => notices.map((notice) => notice.type),
    /**
     * Verdicts of every ACK except the re-ACK right after session.ready: before the Companion's replay
     * has advertised anything on the new connection that one may be classified invalid, which §6 makes
     * harmless (ignored silently).
     */
    verdictsAfterReady: () => verdicts.filter((_, index) => !readyAcks.has(index) || acks[index] === -1),
  };
}

describe('StreamSequencer: ACK (§6, manifest cases and derived cases)', () => {
  it('sends −1 after the first session.ready, which the Companion classifies as a duplicate (−1, −1, −1)', () => {
    const h = harness();
    h.newConnection();
    expect(h.acks).toEqual([-1]);
    expect(h.verdicts).toEqual(['duplicate']);
  });

  it('initial-advance: acked −1, advertised 0, incoming 0 → advance', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0);
    expect(h.applied).toEqual([0]);
    expect(h.acks).toEqual([-1, 0]);
    expect(h.verdicts.at(-1)).toBe('advance');
  });

  it('advance-contiguous-prefix: acked 0, advertised 2, incoming 2 → advance; one ACK per applied frame', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2);
    expect(h.acks).toEqual([-1, 0, 1, 2]);
    expect(h.verdicts).toEqual(['duplicate', 'advance', 'advance', 'advance']);
    expect(h.companion.acknowledgedThrough).toBe(2);
  });

  it('equal-duplicate-ack: a redelivered frame is re-ACKed with the cursor (acked 2, advertised 2, incoming 2 → duplicate)', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2, 2);
    expect(h.applied).toEqual([0, 1, 2]);
    expect(h.acks.at(-1)).toBe(2);
    expect(h.verdicts.at(-1)).toBe('duplicate');
    expect(h.types()).toContain('duplicate');
  });

  it('stale (2, 2, 1) never comes from the browser: duplicates re-ACK the cursor, not the frame', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2, 1, 0);
    expect(h.acks.slice(-2)).toEqual([2, 2]);
    expect(h.verdicts).not.toContain('invalid');
  });

  it('never ACKs beyond what this connection advertised (0, 1, 2 → invalid never happens), nor below −1 or fractions', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 3); // hole: the browser recovers through 2, which was advertised by frame 3 being sent after it
    expect(h.acks.every((ack) => Number.isSafeInteger(ack) && ack >= -1)).toBe(true);
    expect(h.acks.every((ack) => ack <= h.companion.advertisedThrough)).toBe(true);
    expect(h.verdicts).not.toContain('invalid');
  });

  it('after a reconnect, re-ACKs its cursor (ignored by the Companion until its replay advertised it)', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1);
    h.newConnection();
    expect(h.acks.at(-1)).toBe(1);
    expect(h.verdicts.at(-1)).toBe('invalid');
    h.deliver(2);
    expect(h.acks.at(-1)).toBe(2);
    expect(h.verdicts.at(-1)).toBe('advance');
  });
});

describe('StreamSequencer: holes and buffering', () => {
  it('buffers a frame after a self-detected hole, recovers through s−1 and applies it later, never skipping it', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 2, 3);
    expect(h.applied).toEqual([0]);
    expect(h.snapshots.map((s) => s.reason)).toEqual(['recovery']);
    expect(h.sequencer.state).toMatchObject({ cursor: 0, recovering: true, buffered: [2, 3] });
    h.snapshots[0]!.resolve();
    await h.settle();
    expect(h.applied).toEqual([0, 2, 3]);
    expect(h.acks).toEqual([-1, 0, 1, 2, 3]);
    expect(h.sequencer.state).toMatchObject({ cursor: 3, recovering: false, buffered: [] });
    expect(h.types()).toEqual(expect.arrayContaining(['hole', 'recovery-started', 'recovery-completed']));
  });

  it('drops buffered frames at or below the recovery point (the snapshot already covers them)', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 3, 1, 2, 4);
    h.snapshots[0]!.resolve();
    await h.settle();
    expect(h.applied).toEqual([0, 3, 4]);
    expect(h.sequencer.cursor).toBe(4);
  });

  it('starts one recovery at a time', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 3, 7);
    expect(h.snapshots).toHaveLength(1);
  });

  it('after draining, frames above another hole trigger recovery through the smallest − 1', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 2, 5, 6);
    h.snapshots[0]!.resolve();
    await h.settle();
    expect(h.applied).toEqual([0, 2]);
    expect(h.snapshots).toHaveLength(2);
    expect(h.notices).toContainEqual({ type: 'recovery-started', through: 4, epoch: 0 });
    h.snapshots[1]!.resolve();
    await h.settle();
    expect(h.applied).toEqual([0, 2, 5, 6]);
    expect(h.acks.slice(-3)).toEqual([4, 5, 6]);
  });

  it('a failed recovery asks the client to close with 4012 and keeps the buffered frames for the next session', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 2);
    h.snapshots[0]!.reject(new Error('TRANSPORT_ERROR'));
    await h.settle();
    expect(h.recoveryFailures).toHaveLength(1);
    expect(h.sequencer.state).toMatchObject({ cursor: 0, recovering: false, buffered: [2] });
    expect(h.types()).toContain('recovery-failed');
  });

  it('bounds the buffer, keeping the lowest sequences', () => {
    const h = harness({ maxBufferedFrames: 2 });
    h.newConnection();
    h.deliver(0, 5, 4, 9, 3);
    expect(h.sequencer.state.buffered).toEqual([3, 4]);
    expect(h.notices.filter((n) => n.type === 'buffer-overflow')).toEqual([
      { type: 'buffer-overflow', dropped: 9 },
      { type: 'buffer-overflow', dropped: 5 },
    ]);
  });
});

describe('StreamSequencer: runtime.gap', () => {
  it('recovers through the gap, then applies the frames after it', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0);
    h.gap(1, 4);
    h.deliver(5);
    expect(h.applied).toEqual([0]);
    h.snapshots[0]!.resolve();
    await h.settle();
    expect(h.applied).toEqual([0, 5]);
    expect(h.acks).toEqual([-1, 0, 4, 5]);
    expect(h.verdicts).not.toContain('invalid');
  });

  it('a gap at or below the cursor only re-ACKs', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2);
    h.gap(0, 1);
    expect(h.snapshots).toHaveLength(0);
    expect(h.acks.at(-1)).toBe(2);
  });

  it('gap-from-not-after-through is deferred: an inverted gap is not rejected, recovery uses `through` only', async () => {
    const h = harness();
    h.newConnection();
    h.gap(9, 3);
    expect(h.notices).toContainEqual({ type: 'gap', from: 9, through: 3, inverted: true });
    h.snapshots[0]!.resolve();
    await h.settle();
    expect(h.sequencer.cursor).toBe(3);
    expect(h.protocolErrors).toEqual([]);
  });

  it('a gap arriving while recovering is ignored (recover stops), and the later hole heals it', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 2);
    h.gap(3, 6);
    expect(h.snapshots).toHaveLength(1);
    h.deliver(7);
    h.snapshots[0]!.resolve();
    await h.settle();
    expect(h.sequencer.cursor).toBe(2);
    expect(h.notices).toContainEqual({ type: 'recovery-started', through: 6, epoch: 0 });
    h.snapshots[1]!.resolve();
    await h.settle();
    expect(h.applied).toEqual([0, 2, 7]);
  });

  it('the Companion replay order after a buffer roll-over (gap first, then unacked frames) heals with one recovery', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1);
    h.newConnection(); // browser was away; Companion dropped 2..9
    h.gap(2, 9);
    h.deliver(10, 11);
    h.snapshots[0]!.resolve();
    await h.settle();
    expect(h.applied).toEqual([0, 1, 10, 11]);
    expect(h.acks.slice(-3)).toEqual([9, 10, 11]);
    expect(h.verdictsAfterReady()).not.toContain('invalid');
  });
});

describe('StreamSequencer: stream resets (§6 step 2)', () => {
  it('detects a Companion restart at 0 after session.ready: new epoch, cursor −1, buffer cleared, open threads refreshed', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2, 3);
    h.companionRestart();
    h.newConnection();
    h.deliver(0);
    expect(h.sequencer.epoch).toBe(1);
    expect(h.applied).toEqual([0, 1, 2, 3, 0]);
    expect(h.sequencer.cursor).toBe(0);
    expect(h.snapshots.map((s) => s.reason)).toEqual(['reset']);
    expect(h.notices).toContainEqual({ type: 'reset', epoch: 1, relaySequence: 0, previousCursor: 3 });
    expect(h.acks.at(-1)).toBe(0);
    expect(h.verdicts.at(-1)).toBe('advance');
  });

  it('detects a restart after an offline→online status too', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2);
    h.sequencer.workspaceOnline();
    expect(h.snapshots.map((s) => s.reason)).toEqual(['online']);
    h.companionRestart();
    h.deliver(0, 1);
    expect(h.sequencer.epoch).toBe(1);
    expect(h.sequencer.cursor).toBe(1);
  });

  it('without resync, a sequence at or below the cursor is only a duplicate', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2, 0);
    expect(h.sequencer.epoch).toBe(0);
    expect(h.types()).toContain('duplicate');
  });

  it('resync is cleared by the first frame after it: later low sequences are duplicates', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1);
    h.newConnection();
    h.deliver(2, 1);
    expect(h.sequencer.epoch).toBe(0);
    expect(h.applied).toEqual([0, 1, 2]);
  });

  it('fires harmlessly after a lost ACK: replayed frames are re-applied after a recovery in the new epoch', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2, 3);
    h.companion.acknowledgedThrough = 1; // the ACKs of 2 and 3 were lost
    h.newConnection();
    h.deliver(2, 3, 4);
    expect(h.sequencer.epoch).toBe(1);
    expect(h.snapshots.map((s) => s.reason)).toEqual(['reset', 'recovery']);
    h.snapshots[1]!.resolve();
    await h.settle();
    expect(h.sequencer.cursor).toBe(4);
    expect(h.applied.slice(-3)).toEqual([2, 3, 4]);
    expect(h.verdictsAfterReady()).not.toContain('invalid');
  });

  it('a reset during a recovery makes the old recovery result irrelevant', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 5);
    h.newConnection();
    h.deliver(0);
    expect(h.sequencer.epoch).toBe(1);
    h.snapshots[0]!.resolve(); // the recovery of epoch 0 through 4
    await h.settle();
    expect(h.sequencer.cursor).toBe(0);
    expect(h.types()).not.toContain('recovery-completed');
    h.deliver(1);
    expect(h.sequencer.cursor).toBe(1);
  });

  it('an old-epoch recovery that finishes during a new-epoch recovery neither moves the cursor nor ends the new one', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 5); // a hole: recovery through 4 in epoch 0
    h.companionRestart();
    h.newConnection();
    h.deliver(0, 3); // a reset (epoch 1), then a hole: recovery through 2 in epoch 1
    expect(h.sequencer.epoch).toBe(1);
    expect(h.snapshots.map((s) => s.reason)).toEqual(['recovery', 'reset', 'recovery']);
    h.snapshots[0]!.resolve(); // the old epoch's recovery finishes while the new one runs
    await h.settle();
    expect(h.sequencer.cursor).toBe(0);
    expect(h.sequencer.state.recovering).toBe(true);
    expect(h.notices).not.toContainEqual(expect.objectContaining({ type: 'recovery-completed', epoch: 0 }));
    h.snapshots[2]!.resolve();
    await h.settle();
    expect(h.sequencer.cursor).toBe(3);
    expect(h.applied.slice(-2)).toEqual([0, 3]);
  });

  it('a gap right after a resync can reveal a reset too', () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2, 3, 4);
    h.companionRestart();
    h.newConnection();
    h.gap(0, 2);
    expect(h.sequencer.epoch).toBe(1);
    expect(h.snapshots.map((s) => s.reason)).toEqual(['reset', 'recovery']);
  });

  it('a failed refresh is reported, not fatal', async () => {
    const h = harness();
    h.newConnection();
    h.sequencer.workspaceOnline();
    h.snapshots[0]!.reject(new Error('offline'));
    await h.settle();
    expect(h.types()).toContain('refresh-failed');
    expect(h.recoveryFailures).toEqual([]);
  });

  it('relay redelivery of an interaction below the cursor after session.ready is absorbed by reset + hole rules', async () => {
    const h = harness();
    h.newConnection();
    h.deliver(0, 1, 2, 3, 4, 5);
    h.newConnection();
    h.deliver(3); // the relay redelivers a retained interaction.request (sequence 3)
    expect(h.sequencer.epoch).toBe(1);
    h.snapshots[1]!.resolve();
    await h.settle();
    expect(h.sequencer.cursor).toBe(3);
    h.deliver(6); // the Companion's own stream continues
    expect(h.snapshots).toHaveLength(3);
    h.snapshots[2]!.resolve();
    await h.settle();
    expect(h.sequencer.cursor).toBe(6);
  });
});

describe('StreamSequencer: workspace binding', () => {
  it('treats a frame of a foreign workspace as a protocol error and does not apply it', () => {
    const h = harness({ workspaceId: WS });
    h.newConnection();
    h.sequencer.receiveFrame({ type: 'runtime.event', workspaceId: 'other', relaySequence: 0 });
    expect(h.protocolErrors).toHaveLength(1);
    expect(h.applied).toEqual([]);
  });
});
