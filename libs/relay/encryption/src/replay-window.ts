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
 *
 * The staleness rule leaves one hole: what was sealed within `clockSkewMs` before a restart passes it. A
 * `ReplayJournal` closes it: the previous lifetime's openings inside that allowance are `restore`d into the
 * new window, and the cipher writes each opening to the journal before handing the frame out.
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

/** One opened envelope, as a journal keeps it. */
export interface ReplayJournalEntry {
  readonly sender: string;
  readonly counter: number;
  readonly sentAt: number;
}

/**
 * Durable memory of a Companion's openings across its restarts (README "Replays across restarts"). The
 * cipher loads it once when created and appends every envelope it opens, awaiting the append before it
 * returns the frame: a crash before the append completes means the frame was never acted on (the browser's
 * retry is a fresh envelope), so nothing acted on is ever missing from the journal.
 */
export interface ReplayJournal {
  /** The entries sealed at or after `keepSince` (older ones can no longer pass a window's staleness rule). */
  load(keepSince: number): Promise<readonly ReplayJournalEntry[]>;
  /** Resolves once `entry` is durable; entries sealed before `keepSince` may be discarded from now on. */
  append(entry: ReplayJournalEntry, keepSince: number): Promise<void>;
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

  /** Envelopes sealed before this are stale: a window created later than this one refuses at least as much. */
  get staleBefore(): number {
    return this.createdAt - this.clockSkewMs;
  }

  /** What a journal must keep from now on: a window created at or after now refuses everything sealed earlier. */
  keepSince(): number {
    return this.now() - this.clockSkewMs;
  }

  /** Takes over what a previous lifetime opened (its journal), so those envelopes are replays here too. */
  restore(entries: readonly ReplayJournalEntry[]): void {
    for (const entry of entries) if (entry.sentAt >= this.staleBefore) this.record(entry.sender, entry.counter);
  }

  /** Whether an envelope would be fresh, without recording it. */
  check(sender: string, counter: number, sentAt: number): ReplayVerdict {
    if (sentAt < this.staleBefore) return 'stale';
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
