/**
 * The Companion's replay buffer (BEHAVIOUR.md §6): every sequenced frame (`runtime.event`,
 * `interaction.*`) is kept, as the exact plaintext JSON it was numbered with, until the browser ACKs it
 * or the buffer overflows. In memory only; not a durable outbox.
 *
 * Invariant: the retained frames are exactly the sequences in (prunedThrough, highestAssigned], in order.
 */
export interface BufferedFrame {
  readonly sequence: number;
  /** The plaintext frame as UTF-8 JSON text. */
  readonly text: string;
  /** UTF-8 byte length of `text`. */
  readonly bytes: number;
}

export interface ReplayBufferLimits {
  /** Default 10 000 frames. */
  maxFrames: number;
  /** Default 32 MiB of UTF-8 JSON. */
  maxBytes: number;
}

export const DEFAULT_REPLAY_LIMITS: Readonly<ReplayBufferLimits> = { maxFrames: 10_000, maxBytes: 32 * 1024 * 1024 };

export interface ReplayPlan {
  /** Present when frames the peer has not ACKed were already dropped: heal from `through`. */
  gap?: { from: number; through: number };
  /** Retained frames above the ACK, in order. */
  frames: readonly BufferedFrame[];
}

export class ReplayBuffer {
  private entries: BufferedFrame[] = [];
  private head = 0;
  private totalBytes = 0;
  private pruned = -1;
  private highest = -1;
  private readonly limits: ReplayBufferLimits;

  constructor(limits: Partial<ReplayBufferLimits> = {}) {
    this.limits = { ...DEFAULT_REPLAY_LIMITS, ...limits };
    if (!(this.limits.maxFrames >= 1) || !(this.limits.maxBytes >= 1)) throw new RangeError('Replay buffer limits must be positive.');
  }

  /** The highest sequence ever removed, by ACK or overflow; −1 before any. */
  get prunedThrough(): number {
    return this.pruned;
  }

  /** The highest sequence ever appended; −1 before any. */
  get highestAssigned(): number {
    return this.highest;
  }

  get size(): number {
    return this.entries.length - this.head;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** Appends the next sequence (must be `highestAssigned + 1`), then drops the oldest frames beyond the limits. */
  append(frame: BufferedFrame): void {
    if (frame.sequence !== this.highest + 1) {
      throw new RangeError(`Sequence ${frame.sequence} does not follow ${this.highest}.`);
    }
    this.entries.push(frame);
    this.totalBytes += frame.bytes;
    this.highest = frame.sequence;
    while (this.size > 0 && (this.size > this.limits.maxFrames || this.totalBytes > this.limits.maxBytes)) this.dropOldest();
    this.compact();
  }

  /** Drops frames ≤ `through`; ignores `through` above the highest assigned sequence. */
  acknowledge(through: number): void {
    if (!Number.isSafeInteger(through) || through > this.highest || through <= this.pruned) return;
    while (this.size > 0 && this.first().sequence <= through) this.dropOldest();
    this.pruned = Math.max(this.pruned, through);
    this.compact();
  }

  /** Retained frames above `after`, in order, preceded by a gap when frames above `after` were dropped. */
  replay(after: number): ReplayPlan {
    const frames: BufferedFrame[] = [];
    for (let index = this.head; index < this.entries.length; index += 1) {
      const frame = this.entries[index];
      if (frame && frame.sequence > after) frames.push(frame);
    }
    return after < this.pruned ? { gap: { from: after + 1, through: this.pruned }, frames } : { frames };
  }

  private first(): BufferedFrame {
    const frame = this.entries[this.head];
    if (!frame) throw new Error('The replay buffer is empty.');
    return frame;
  }

  private dropOldest(): void {
    const frame = this.first();
    this.head += 1;
    this.totalBytes -= frame.bytes;
    this.pruned = frame.sequence;
  }

  /** Reclaims the consumed prefix now and then, keeping `append`/`acknowledge` amortised O(1). */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
