/**
 * One workspace's frames log as this replica holds it in memory: the sequenced frames the Companion sent
 * (`runtime.event`, `interaction.*`, sequenced `runtime.encrypted`), newest last, for catching up browsers
 * that reconnect with their ACK cursor. The durable copy is the bus topic `relay.workspace-frames.v1`;
 * this ring is bounded by count, bytes and age (whichever is reached first), and its bytes count against
 * the process's budget for all rings (`ByteBudget`), which may cut it further (`shrinkTo`).
 *
 * Off the JavaScript heap. A busy gateway retains hundreds of thousands of frames; kept as a string and an
 * object each, every one of them survived the young generation (copied twice) and then weighed on every
 * full collection, and the collector's pauses (tens to hundreds of ms) became the relay's tail latency. So
 * the ring keeps each frame's UTF-8 bytes in `Buffer` chunks (outside the heap, never copied by the
 * collector) and its few numbers in plain arrays of numbers, and makes a `LoggedFrame` again only when a
 * catch-up or a replay reads it. Interaction frames (few) keep their extra fields in a map.
 *
 * Stream epochs. The Companion numbers frames from 0 and restarts at 0 when it restarts (§6), so one
 * workspace's log is a series of epochs. The replica holding the Companion decides the epoch of each
 * frame (`classify`): a sequence above the head continues the epoch; a sequence at or below the head is
 * a replay (the Companion re-sending unacknowledged frames after a reconnect) when the retained frame
 * with that number is byte-for-byte the same, and a new epoch otherwise (or when it is 0 and no longer
 * retained, or sealed). A new epoch empties the ring, so catch-up never serves frames of two epochs.
 *
 * Pure: no I/O, no timers; the clock is passed in.
 */
import { downgradeFrameTo11, type Wire12, type WireVersion } from '@trustmesh/relay-protocol';

import type { BudgetHolder, ByteBudget } from './byte-budget';

export interface LoggedFrame {
  relaySequence: number;
  /** The frame exactly as the Companion sent it (after validation). */
  text: string;
  /** The Companion's Wire version when it sent the frame. */
  wire: WireVersion;
  type: string;
  /** Bytes the entry holds: UTF-8 size of `text`, plus that of `text11` once it is a copy of its own. */
  bytes: number;
  /** When the frame was logged (ms since epoch). */
  at: number;
  /** Set on interaction frames. */
  interactionId?: string;
  /** `approval.request` / `userInput.request` on interaction frames. */
  interactionMethod?: string;
  /** interaction.request only: when the Companion gives up on it (ms since epoch). */
  expiresAt?: number;
  /** The 1.1 downgrade of a 1.2 frame, computed once on first need (`text11Of`); null when it has none (§2). */
  text11?: string | null;
}

/** What holds logged frames and counts their bytes (a frames ring, retained interactions). */
export interface FrameHolder {
  /** The entry holds `delta` more bytes from now on: counted if this holder keeps it. */
  grow(entry: LoggedFrame, delta: number): void;
}

/**
 * The text of a 1.2 frame for a 1.1 session (§2), computed once and cached on the entry; null when the frame
 * has no 1.1 form (`invalid` is then true the first time). When the downgrade changes nothing the original
 * text is shared (safe: a frame with duplicate keys never got this far, so its text means exactly its value);
 * otherwise the copy's bytes are counted by every holder that keeps the entry, and given back with it.
 */
export function text11Of(entry: LoggedFrame, holders: readonly FrameHolder[]): { text: string | null; invalid: boolean } {
  if (entry.text11 !== undefined) return { text: entry.text11, invalid: false };
  const parsed = JSON.parse(entry.text) as Wire12.WireFrame;
  const unchanged = JSON.stringify(parsed);
  const downgraded = downgradeFrameTo11(parsed);
  if (!downgraded.ok) {
    entry.text11 = null;
    return { text: null, invalid: true };
  }
  const text = JSON.stringify(downgraded.value);
  if (text === unchanged) {
    entry.text11 = entry.text;
    return { text: entry.text, invalid: false };
  }
  entry.text11 = text;
  const delta = Buffer.byteLength(text);
  for (const holder of holders) holder.grow(entry, delta);
  entry.bytes += delta;
  return { text, invalid: false };
}

export interface RetentionLimits {
  frames: number;
  bytes: number;
  ms: number;
}

export type FrameClassification = 'append' | 'replay' | 'new-epoch';

/** What a browser with cursor `after` needs, in order: frames, and gaps for what is no longer retained. */
export type CatchUpItem = { kind: 'frame'; frame: LoggedFrame } | { kind: 'gap'; from: number; through: number };

/** Frame bytes go into chunks of this size; a larger frame gets a chunk of its own, exactly its size. */
const CHUNK_BYTES = 64 * 1024;

interface Chunk {
  readonly buffer: Buffer;
  used: number;
}

/** What an interaction frame carries beyond the common fields. */
type InteractionFields = Pick<LoggedFrame, 'interactionId' | 'interactionMethod' | 'expiresAt'>;

/** Wire versions and frame types as small numbers, so the ring holds no strings per frame. */
class Codes<T extends string> {
  private readonly byValue = new Map<T, number>();
  private readonly values: T[] = [];

  code(value: T): number {
    let code = this.byValue.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.values.push(value);
      this.byValue.set(value, code);
    }
    return code;
  }

  value(code: number): T {
    return this.values[code] as T;
  }
}

const WIRES = new Codes<WireVersion>();
const TYPES = new Codes<string>();

export class WorkspaceFrameLog implements BudgetHolder, FrameHolder {
  // One entry per retained frame, in parallel arrays from `start` (older entries are dead until compacted).
  private sequences: number[] = [];
  private ats: number[] = [];
  private lengths: number[] = [];
  private offsets: number[] = [];
  /** Index into `chunks` (counted from `chunkBase`). */
  private chunkIndexes: number[] = [];
  /** Wire code × 65,536 + type code. */
  private kinds: number[] = [];
  private start = 0;
  private chunks: Array<Chunk | undefined> = [];
  /** The chunk index that `chunks[0]` has: chunks before the oldest frame are let go. */
  private chunkBase = 0;
  private readonly interactions = new Map<number, InteractionFields>();
  private totalBytes = 0;
  private currentEpoch: string | null = null;
  private headSequence = -1;

  constructor(
    private readonly limits: RetentionLimits,
    /** The process's bound over every ring; none in unit tests of one ring. */
    private readonly budget?: ByteBudget,
  ) {}

  get epoch(): string | null {
    return this.currentEpoch;
  }

  /** The highest sequence of the current epoch this log has seen (frame or gap), −1 if none. */
  get head(): number {
    return this.headSequence;
  }

  get size(): number {
    return this.sequences.length - this.start;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /**
   * Decides how a sequenced frame from the Companion relates to the log (see the file header). `opaque`
   * frames (`runtime.encrypted`) are sealed again with a fresh nonce when the Companion replays them, so
   * their bytes say nothing: at or below the head, 0 means a restart and anything else a replay.
   */
  classify(relaySequence: number, text: string, opaque = false): FrameClassification {
    if (this.currentEpoch === null) return 'new-epoch';
    if (relaySequence > this.headSequence) return 'append';
    const retained = opaque ? undefined : this.get(relaySequence);
    if (retained) return retained.text === text ? 'replay' : 'new-epoch';
    return relaySequence === 0 ? 'new-epoch' : 'replay';
  }

  /** Starts a new epoch: the ring is emptied and the head goes back to −1. */
  startEpoch(epoch: string): void {
    this.currentEpoch = epoch;
    this.sequences = [];
    this.ats = [];
    this.lengths = [];
    this.offsets = [];
    this.chunkIndexes = [];
    this.kinds = [];
    this.start = 0;
    this.chunks = [];
    this.chunkBase = 0;
    this.interactions.clear();
    this.budget?.add(-this.totalBytes);
    this.totalBytes = 0;
    this.headSequence = -1;
  }

  /**
   * Appends a frame of the current epoch above the head; frames at or below the head are ignored. The ring
   * copies the frame's text: the entry itself is not kept (what the ring holds is its own, counted once).
   */
  append(frame: LoggedFrame, now: number): boolean {
    if (frame.relaySequence <= this.headSequence) return false;
    this.headSequence = frame.relaySequence;
    if (this.limits.frames > 0 && this.limits.bytes > 0 && this.limits.ms > 0) {
      // `bytes` is the text's UTF-8 size until a 1.1 copy is cached on the entry (`text11Of`).
      const length = frame.text11 === undefined || frame.text11 === null || frame.text11 === frame.text ? frame.bytes : Buffer.byteLength(frame.text);
      const [chunkIndex, offset] = this.write(frame.text, length);
      this.sequences.push(frame.relaySequence);
      this.ats.push(frame.at);
      this.lengths.push(length);
      this.offsets.push(offset);
      this.chunkIndexes.push(chunkIndex);
      this.kinds.push(WIRES.code(frame.wire) * 65_536 + TYPES.code(frame.type));
      if (frame.interactionId !== undefined) {
        this.interactions.set(frame.relaySequence, {
          interactionId: frame.interactionId,
          ...(frame.interactionMethod !== undefined ? { interactionMethod: frame.interactionMethod } : {}),
          ...(frame.expiresAt !== undefined ? { expiresAt: frame.expiresAt } : {}),
        });
      }
      this.totalBytes += length;
      this.budget?.add(length);
    }
    this.prune(now);
    return true;
  }

  /**
   * A 1.1 copy cached on an entry (`text11Of`) lives on that entry, not here: the ring keeps only the frame's
   * own bytes and makes the copy again for each catch-up that needs it. Nothing to count.
   */
  grow(_entry: LoggedFrame, _delta: number): void {
    // The ring holds no 1.1 copies.
  }

  /** A `runtime.gap` from the Companion: the frames up to `through` will never come. */
  noteGap(through: number): void {
    if (through > this.headSequence) this.headSequence = through;
  }

  /** The retained frame with this sequence (a fresh `LoggedFrame` each time), if any. */
  get(relaySequence: number): LoggedFrame | undefined {
    // Sequences ascend, so a binary search finds the frame.
    let low = this.start;
    let high = this.sequences.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const sequence = this.sequences[middle] as number;
      if (sequence === relaySequence) return this.frameAt(middle);
      if (sequence < relaySequence) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /**
   * Everything above `after` up to the head: retained frames in order, with a gap wherever frames are
   * missing (older than the retention, or never received because the Companion itself sent a gap). With a
   * `limit`, the first items only (at least `limit`, at most one more), without the trailing gap: the caller
   * asks again from the last item it took.
   */
  catchUp(after: number, now: number, limit = Number.POSITIVE_INFINITY): CatchUpItem[] {
    this.prune(now);
    const items: CatchUpItem[] = [];
    let expected = after + 1;
    for (let index = this.firstIndexAbove(after); index < this.sequences.length; index += 1) {
      // A slice of the catch-up (it is paced by what the browser reads): the rest comes on the next call.
      if (items.length >= limit) return items;
      const sequence = this.sequences[index] as number;
      if (sequence > expected) items.push({ kind: 'gap', from: expected, through: sequence - 1 });
      items.push({ kind: 'frame', frame: this.frameAt(index) });
      expected = sequence + 1;
    }
    if (this.headSequence >= expected) items.push({ kind: 'gap', from: expected, through: this.headSequence });
    return items;
  }

  /** Whether every frame in `(after, through]` is retained. */
  holdsContiguous(after: number, through: number): boolean {
    let expected = after + 1;
    for (let index = this.firstIndexAbove(after); index < this.sequences.length && expected <= through; index += 1) {
      if (this.sequences[index] !== expected) return false;
      expected += 1;
    }
    return expected > through;
  }

  private firstIndexAbove(after: number): number {
    let low = this.start;
    let high = this.sequences.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.sequences[middle] as number) <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private frameAt(index: number): LoggedFrame {
    const chunk = this.chunks[(this.chunkIndexes[index] as number) - this.chunkBase] as Chunk;
    const offset = this.offsets[index] as number;
    const length = this.lengths[index] as number;
    const kind = this.kinds[index] as number;
    const relaySequence = this.sequences[index] as number;
    return {
      relaySequence,
      text: chunk.buffer.toString('utf8', offset, offset + length),
      wire: WIRES.value(Math.floor(kind / 65_536)),
      type: TYPES.value(kind % 65_536),
      bytes: length,
      at: this.ats[index] as number,
      ...this.interactions.get(relaySequence),
    };
  }

  /** Copies the text into the newest chunk (or a new one); returns where it went. */
  private write(text: string, length: number): [chunkIndex: number, offset: number] {
    let chunk = this.chunks[this.chunks.length - 1];
    if (!chunk || chunk.buffer.length - chunk.used < length) {
      // Outside Node's shared pool: a chunk is let go as a whole once its frames are pruned.
      chunk = { buffer: Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, length)), used: 0 };
      this.chunks.push(chunk);
    }
    const offset = chunk.used;
    chunk.used += chunk.buffer.write(text, offset, length, 'utf8');
    return [this.chunkBase + this.chunks.length - 1, offset];
  }

  /** Drops the oldest frames past any retention limit. */
  prune(now: number): void {
    const { frames: maxFrames, bytes: maxBytes, ms: maxAge } = this.limits;
    this.dropOldestWhile((index) => this.sequences.length - this.start > maxFrames || this.totalBytes > maxBytes || now - (this.ats[index] as number) > maxAge);
  }

  /** Drops the oldest frames until the ring holds at most `bytes` (the process's budget is over). */
  shrinkTo(bytes: number): void {
    this.dropOldestWhile(() => this.totalBytes > bytes);
  }

  private dropOldestWhile(past: (oldest: number) => boolean): void {
    const before = this.start;
    while (this.start < this.sequences.length && past(this.start)) {
      const length = this.lengths[this.start] as number;
      this.totalBytes -= length;
      this.budget?.add(-length);
      if (this.interactions.size > 0) this.interactions.delete(this.sequences[this.start] as number);
      this.start += 1;
    }
    if (this.start === before) return;
    // Chunks holding no retained frame are let go.
    const firstLive = this.start < this.sequences.length ? (this.chunkIndexes[this.start] as number) : this.chunkBase + this.chunks.length;
    const dead = firstLive - this.chunkBase;
    if (dead > 0) {
      this.chunks.splice(0, dead);
      this.chunkBase = firstLive;
    }
    // Compact once the dead prefix dominates, so the arrays never grow without bound.
    if (this.start > 1024 && this.start * 2 > this.sequences.length) {
      const from = this.start;
      this.sequences = this.sequences.slice(from);
      this.ats = this.ats.slice(from);
      this.lengths = this.lengths.slice(from);
      this.offsets = this.offsets.slice(from);
      this.chunkIndexes = this.chunkIndexes.slice(from);
      this.kinds = this.kinds.slice(from);
      this.start = 0;
    }
  }
}
