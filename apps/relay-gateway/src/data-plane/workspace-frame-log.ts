/**
 * One workspace's frames log as this replica holds it in memory: the sequenced frames the Companion sent
 * (`runtime.event`, `interaction.*`, sequenced `runtime.encrypted`), newest last, for catching up browsers
 * that reconnect with their ACK cursor. The durable copy is the bus topic `relay.workspace-frames.v1`;
 * this ring is bounded by count, bytes and age (whichever is reached first), and its bytes count against
 * the process's budget for all rings (`ByteBudget`), which may cut it further (`shrinkTo`).
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

export class WorkspaceFrameLog implements BudgetHolder, FrameHolder {
  private frames: LoggedFrame[] = [];
  private start = 0;
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
    return this.frames.length - this.start;
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
    this.frames = [];
    this.start = 0;
    this.budget?.add(-this.totalBytes);
    this.totalBytes = 0;
    this.headSequence = -1;
  }

  /** Appends a frame of the current epoch above the head; frames at or below the head are ignored. */
  append(frame: LoggedFrame, now: number): boolean {
    if (frame.relaySequence <= this.headSequence) return false;
    this.headSequence = frame.relaySequence;
    if (this.limits.frames > 0 && this.limits.bytes > 0 && this.limits.ms > 0) {
      this.frames.push(frame);
      this.totalBytes += frame.bytes;
      this.budget?.add(frame.bytes);
    }
    this.prune(now);
    return true;
  }

  grow(entry: LoggedFrame, delta: number): void {
    if (this.get(entry.relaySequence) !== entry) return;
    this.totalBytes += delta;
    this.budget?.add(delta);
  }

  /** A `runtime.gap` from the Companion: the frames up to `through` will never come. */
  noteGap(through: number): void {
    if (through > this.headSequence) this.headSequence = through;
  }

  get(relaySequence: number): LoggedFrame | undefined {
    // Sequences ascend, so a binary search finds the frame.
    let low = this.start;
    let high = this.frames.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const frame = this.frames[middle] as LoggedFrame;
      if (frame.relaySequence === relaySequence) return frame;
      if (frame.relaySequence < relaySequence) low = middle + 1;
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
    for (let index = this.firstIndexAbove(after); index < this.frames.length; index += 1) {
      // A slice of the catch-up (it is paced by what the browser reads): the rest comes on the next call.
      if (items.length >= limit) return items;
      const frame = this.frames[index] as LoggedFrame;
      if (frame.relaySequence > expected) items.push({ kind: 'gap', from: expected, through: frame.relaySequence - 1 });
      items.push({ kind: 'frame', frame });
      expected = frame.relaySequence + 1;
    }
    if (this.headSequence >= expected) items.push({ kind: 'gap', from: expected, through: this.headSequence });
    return items;
  }

  /** Retained frames in `(after, through]`, or undefined if any of them is missing. */
  contiguous(after: number, through: number): LoggedFrame[] | undefined {
    const out: LoggedFrame[] = [];
    let expected = after + 1;
    for (let index = this.firstIndexAbove(after); index < this.frames.length && expected <= through; index += 1) {
      const frame = this.frames[index] as LoggedFrame;
      if (frame.relaySequence !== expected) return undefined;
      out.push(frame);
      expected += 1;
    }
    return expected > through ? out : undefined;
  }

  private firstIndexAbove(after: number): number {
    let low = this.start;
    let high = this.frames.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.frames[middle] as LoggedFrame).relaySequence <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Drops the oldest frames past any retention limit. */
  prune(now: number): void {
    const { frames: maxFrames, bytes: maxBytes, ms: maxAge } = this.limits;
    this.dropOldestWhile((oldest) => this.frames.length - this.start > maxFrames || this.totalBytes > maxBytes || now - oldest.at > maxAge);
  }

  /** Drops the oldest frames until the ring holds at most `bytes` (the process's budget is over). */
  shrinkTo(bytes: number): void {
    this.dropOldestWhile(() => this.totalBytes > bytes);
  }

  private dropOldestWhile(past: (oldest: LoggedFrame) => boolean): void {
    while (this.start < this.frames.length) {
      const oldest = this.frames[this.start] as LoggedFrame;
      if (!past(oldest)) break;
      this.totalBytes -= oldest.bytes;
      this.budget?.add(-oldest.bytes);
      this.frames[this.start] = undefined as unknown as LoggedFrame;
      this.start += 1;
    }
    // Compact once the dead prefix dominates, so the array never grows without bound.
    if (this.start > 1024 && this.start * 2 > this.frames.length) {
      this.frames = this.frames.slice(this.start);
      this.start = 0;
    }
  }
}
