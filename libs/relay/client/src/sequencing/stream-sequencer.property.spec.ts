/**
 * Property: whatever order, duplication and loss the relay delivers a stream in, the sequencer applies
 * frames in strictly increasing order, never twice within an epoch, ACKs only integers ≥ −1 that never go backwards
 * within an epoch nor beyond what it received, and ends at the last frame once recoveries complete.
 */
import fc from 'fast-check';

import { StreamSequencer, type SequencedFrame } from './stream-sequencer';

const settle = async () => {
  for (let turn = 0; turn < 6; turn += 1) await Promise.resolve();
};

describe('StreamSequencer (property)', () => {
  it('applies in order, once per epoch, and catches up to the end of any delivery', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }).chain((length) =>
          fc.record({
            length: fc.constant(length),
            // Each frame delivered 0..3 times, in a shuffled order; the last frame always arrives.
            copies: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: length, maxLength: length }),
            order: fc.array(fc.nat(), { minLength: length * 3, maxLength: length * 3 }),
            failFirstRecovery: fc.boolean(),
          }),
        ),
        async ({ length, copies, order, failFirstRecovery }) => {
          const applied: Array<[number, number]> = [];
          const acks: Array<[number, number]> = [];
          let maxReceived = -1;
          let failuresLeft = failFirstRecovery ? 1 : 0;
          let recoveryFailures = 0;
          const sequencer: StreamSequencer<SequencedFrame> = new StreamSequencer<SequencedFrame>({
            apply: (frame) => applied.push([sequencer.epoch, frame.relaySequence]),
            ack: (through) => acks.push([sequencer.epoch, through]),
            snapshotOpenThreads: async () => {
              if (failuresLeft > 0) {
                failuresLeft -= 1;
                throw new Error('snapshot failed');
              }
            },
            recoveryFailed: () => {
              recoveryFailures += 1;
            },
            protocolError: () => {
              throw new Error('unexpected protocol error');
            },
          });
          sequencer.sessionReady('ws');
          const deliveries: number[] = [];
          copies.forEach((count, sequence) => {
            for (let copy = 0; copy < (sequence === length - 1 ? Math.max(1, count) : count); copy += 1) deliveries.push(sequence);
          });
          deliveries.sort((a, b) => (order[a] ?? 0) - (order[b] ?? 0) || a - b);
          // The first frame after session.ready must not look like a reset in this model (no restart here).
          for (const sequence of deliveries) {
            maxReceived = Math.max(maxReceived, sequence);
            sequencer.receiveFrame({ type: 'runtime.event', workspaceId: 'ws', relaySequence: sequence });
            await settle();
          }
          if (recoveryFailures > 0) {
            // The client would reconnect; the Companion replays the last frame again.
            sequencer.sessionReady('ws');
            sequencer.receiveFrame({ type: 'runtime.event', workspaceId: 'ws', relaySequence: length - 1 });
            await settle();
          }
          // Within an epoch: strictly increasing applies, non-decreasing ACKs. A reset (a new epoch, here
          // after the reconnect replays an already applied frame) may re-apply frames: §6 calls that harmless.
          const sameEpoch = <T>(list: Array<[number, T]>, check: (previous: T, next: T) => void) =>
            list.forEach(([epoch, value], index) => {
              const previous = list[index - 1];
              if (previous && previous[0] === epoch) check(previous[1], value);
            });
          sameEpoch(applied, (previous, next) => expect(next).toBeGreaterThan(previous));
          sameEpoch(acks, (previous, next) => expect(next).toBeGreaterThanOrEqual(previous));
          expect(acks.every(([, ack]) => Number.isSafeInteger(ack) && ack >= -1 && ack <= maxReceived)).toBe(true);
          if (recoveryFailures === 0) expect(sequencer.epoch).toBe(0);
          expect(sequencer.state).toMatchObject({ cursor: length - 1, recovering: false, buffered: [] });
        },
      ),
      { numRuns: 200 },
    );
  });
});
