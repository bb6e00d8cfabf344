/**
 * ACK classification (BEHAVIOUR.md §6). `throughRelaySequence` is the highest contiguous sequence the
 * browser applied (−1: nothing yet). The Companion keeps `acknowledgedThrough` per workspace across
 * reconnects, and `advertisedThrough` per connection: the highest sequence whose send completed on it.
 */
export type AckDisposition = 'advance' | 'duplicate' | 'invalid';

export interface AckState {
  acknowledgedThrough: number;
  advertisedThrough: number;
}

const isSequenceOrSentinel = (value: number): boolean => Number.isSafeInteger(value) && value >= -1;

/**
 * 1. invalid: any value is not an integer or is below −1, or the ACK covers frames not sent on this
 *    connection (incoming > advertised);
 * 2. advance: incoming > acknowledged;
 * 3. duplicate: otherwise.
 *
 * Only `advance` acts; the others are ignored silently (no error frame exists).
 */
export function classifyAck(state: AckState, incomingThrough: number): AckDisposition {
  const { acknowledgedThrough, advertisedThrough } = state;
  if (![acknowledgedThrough, advertisedThrough, incomingThrough].every(isSequenceOrSentinel)) return 'invalid';
  if (incomingThrough > advertisedThrough) return 'invalid';
  return incomingThrough > acknowledgedThrough ? 'advance' : 'duplicate';
}
