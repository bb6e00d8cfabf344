/**
 * The receiver's memory of what it has opened, so a hostile relay cannot replay a recorded envelope
 * (profile revision 2, see README "Replays"). Every sealed body names its sender (a random id per cipher
 * instance), a counter the sender increments per envelope, and the sender's clock at sealing:
 *
 * - per sender, the highest counter seen and which of the `windowSize` counters below it were seen: a
 *   counter seen before, or below the window, is a replay (the window tolerates reordering, which the relay
 *   may do across replicas);
 * - an envelope sealed before this window was created (less `clockSkewMs`) is stale: that is what protects
 *   a receiver that restarted and so forgot every sender, since anything recorded before the restart was
 *   sealed before it;
 * - at most `maxSenders` senders are remembered (least recently heard dropped first): memory stays bounded;
 *   senders are cipher instances (one browser session each), not anything a relay can mint.
 */
export interface ReplayWindowOptions {
  /** Counters tolerated out of order below the highest one seen (default 1024). */
  windowSize?: number;
  /** Senders remembered at once (default 4096). */
  maxSenders?: number;
  /** How far a sender's clock may trail this one's (default 60 s). */
  clockSkewMs?: number;
  now?: () => number;
}

export type ReplayVerdict = 'fresh' | 'replayed' | 'stale';

interface SenderState {
  highest: number;
  /** Counters within (highest − windowSize, highest] that were seen. */
  seen: Set<number>;
}

export class ReplayWindow {
  private readonly windowSize: number;
  private readonly maxSenders: number;
  private readonly clockSkewMs: number;
  private readonly now: () => number;
  private readonly createdAt: number;
  /** Insertion order is recency: a sender is re-inserted whenever it is heard. */
  private readonly senders = new Map<string, SenderState>();

  constructor(options: ReplayWindowOptions = {}) {
    this.windowSize = options.windowSize ?? 1024;
    this.maxSenders = options.maxSenders ?? 4096;
    this.clockSkewMs = options.clockSkewMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.createdAt = this.now();
  }

  /** Whether an envelope would be fresh, without recording it. */
  check(sender: string, counter: number, sentAt: number): ReplayVerdict {
    if (sentAt < this.createdAt - this.clockSkewMs) return 'stale';
    const state = this.senders.get(sender);
    if (!state) return 'fresh';
    if (counter > state.highest) return 'fresh';
    if (counter <= state.highest - this.windowSize) return 'replayed';
    return state.seen.has(counter) ? 'replayed' : 'fresh';
  }

  /** Records an envelope that `check` found fresh and that opened completely. */
  record(sender: string, counter: number): void {
    const state = this.senders.get(sender) ?? { highest: -1, seen: new Set<number>() };
    this.senders.delete(sender);
    if (counter > state.highest) {
      state.highest = counter;
      for (const old of state.seen) if (old <= counter - this.windowSize) state.seen.delete(old);
    }
    state.seen.add(counter);
    this.senders.set(sender, state);
    if (this.senders.size > this.maxSenders) this.senders.delete(this.senders.keys().next().value as string);
  }
}
