/**
 * The Browser's half of the Workspace sequence (BEHAVIOUR.md §6, "Browser algorithm"), with no sockets:
 * the ack cursor, the out-of-order buffer, hole and gap recovery through snapshots, and stream-reset
 * detection. The client feeds it validated frames in arrival order; everything it does to the outside
 * world goes through a `SequencerPort`, so every rule is unit-testable with a fake port.
 *
 * State: `cursor` (−1: nothing applied), `buffer` (frames above a hole, by sequence), `recovering`,
 * `resync` (set by every `session.ready` and every offline→online status) and `epoch` (bumped by resets).
 */

/** Anything in the Workspace sequence: `runtime.event` and `interaction.*` frames. */
export interface SequencedFrame {
  type: string;
  workspaceId: string;
  relaySequence: number;
}

export interface GapNotice {
  workspaceId: string;
  fromRelaySequence: number;
  throughRelaySequence: number;
}

/** Why open threads are snapshotted. */
export type SnapshotReason = 'recovery' | 'reset' | 'online';

export type SequencerNotice =
  | { type: 'duplicate'; relaySequence: number }
  | { type: 'hole'; expected: number; received: number }
  | { type: 'gap'; from: number; through: number; inverted: boolean }
  | { type: 'reset'; epoch: number; relaySequence: number; previousCursor: number }
  | { type: 'recovery-started'; through: number; epoch: number }
  | { type: 'recovery-completed'; through: number; epoch: number }
  | { type: 'recovery-failed'; through: number; epoch: number; error: unknown }
  | { type: 'refresh-failed'; reason: SnapshotReason; error: unknown }
  | { type: 'buffer-overflow'; dropped: number }
  | { type: 'foreign-workspace'; workspaceId: string };

export interface SequencerPort<F extends SequencedFrame> {
  /** Applies one frame to the application state (in sequence order, exactly once per epoch). */
  apply(frame: F): void;
  /** Sends `runtime.ack {throughRelaySequence}`. */
  ack(throughRelaySequence: number): void;
  /** Snapshots every open thread (`thread.snapshot {threadId, limit: 100}`); rejects if any fails. */
  snapshotOpenThreads(reason: SnapshotReason): Promise<void>;
  /** A recovery failed: the client closes with 4012 and reconnects. */
  recoveryFailed(error: unknown): void;
  /** A foreign `workspaceId`: a protocol error (the client closes with 4002). */
  protocolError(reason: string): void;
  /** Everything else worth showing or logging. */
  notify?(notice: SequencerNotice): void;
}

export interface StreamSequencerOptions {
  /** The session's workspace, when known; frames naming another one are protocol errors. */
  workspaceId?: string;
  /** Bound on buffered frames (default 10 000, the Companion's own buffer); overflow is healed by recovery. */
  maxBufferedFrames?: number;
}

export interface SequencerState {
  cursor: number;
  epoch: number;
  recovering: boolean;
  resync: boolean;
  buffered: number[];
}

export class StreamSequencer<F extends SequencedFrame = SequencedFrame> {
  private cursorValue = -1;
  private epochValue = 0;
  private recovering = false;
  private resync = false;
  private readonly buffer = new Map<number, F>();
  private workspaceId: string | undefined;
  private readonly maxBuffered: number;

  constructor(
    private readonly port: SequencerPort<F>,
    options: StreamSequencerOptions = {},
  ) {
    this.workspaceId = options.workspaceId;
    this.maxBuffered = options.maxBufferedFrames ?? 10_000;
  }

  get cursor(): number {
    return this.cursorValue;
  }

  get epoch(): number {
    return this.epochValue;
  }

  get state(): SequencerState {
    return {
      cursor: this.cursorValue,
      epoch: this.epochValue,
      recovering: this.recovering,
      resync: this.resync,
      buffered: [...this.buffer.keys()].sort((a, b) => a - b),
    };
  }

  /** After every `session.ready`: arm reset detection and ACK the cursor (−1 if nothing applied yet). */
  sessionReady(workspaceId?: string): void {
    if (workspaceId !== undefined) this.workspaceId ??= workspaceId;
    this.resync = true;
    this.port.ack(this.cursorValue);
  }

  /** After an offline→online `workspace.status`: arm reset detection and refresh open threads. */
  workspaceOnline(): void {
    this.resync = true;
    this.refresh('online');
  }

  receiveFrame(frame: F): void {
    if (this.isForeign(frame.workspaceId)) return;
    const s = frame.relaySequence;
    this.detectReset(s);
    if (s <= this.cursorValue) {
      this.port.notify?.({ type: 'duplicate', relaySequence: s });
      this.port.ack(this.cursorValue);
      return;
    }
    if (this.recovering) {
      this.hold(frame);
      return;
    }
    if (s !== this.cursorValue + 1) {
      this.port.notify?.({ type: 'hole', expected: this.cursorValue + 1, received: s });
      this.hold(frame);
      this.recover(s - 1);
      return;
    }
    this.applyNext(frame);
    this.drain();
  }

  receiveGap(gap: GapNotice): void {
    if (this.isForeign(gap.workspaceId)) return;
    const from = gap.fromRelaySequence;
    const through = gap.throughRelaySequence;
    // Deferred rule gap-from-not-after-through: never reject, recover from `through` only, report it.
    this.port.notify?.({ type: 'gap', from, through, inverted: from > through });
    this.detectReset(through);
    this.recover(through);
  }

  private isForeign(workspaceId: string): boolean {
    if (this.workspaceId === undefined || workspaceId === this.workspaceId) return false;
    this.port.notify?.({ type: 'foreign-workspace', workspaceId });
    this.port.protocolError('A sequenced frame names another workspace.');
    return true;
  }

  /** Step 2: the first sequence after a resync point at or below the cursor means the stream restarted. */
  private detectReset(s: number): void {
    if (!this.resync) return;
    this.resync = false;
    if (s > this.cursorValue) return;
    const previousCursor = this.cursorValue;
    this.epochValue += 1;
    this.cursorValue = -1;
    this.buffer.clear();
    this.recovering = false;
    this.port.notify?.({ type: 'reset', epoch: this.epochValue, relaySequence: s, previousCursor });
    this.refresh('reset');
  }

  private refresh(reason: SnapshotReason): void {
    this.port.snapshotOpenThreads(reason).catch((error: unknown) => this.port.notify?.({ type: 'refresh-failed', reason, error }));
  }

  private recover(t: number): void {
    if (t <= this.cursorValue) {
      this.port.ack(this.cursorValue);
      return;
    }
    if (this.recovering) return;
    this.recovering = true;
    const epoch = this.epochValue;
    this.port.notify?.({ type: 'recovery-started', through: t, epoch });
    this.port.snapshotOpenThreads('recovery').then(
      () => {
        // A reset during the snapshots started a new epoch: this result describes an old stream.
        if (epoch !== this.epochValue || !this.recovering) return;
        this.recovering = false;
        this.cursorValue = t;
        for (const sequence of [...this.buffer.keys()]) if (sequence <= t) this.buffer.delete(sequence);
        this.port.ack(t);
        this.port.notify?.({ type: 'recovery-completed', through: t, epoch });
        this.drain();
      },
      (error: unknown) => {
        if (epoch !== this.epochValue || !this.recovering) return;
        this.recovering = false;
        this.port.notify?.({ type: 'recovery-failed', through: t, epoch, error });
        this.port.recoveryFailed(error);
      },
    );
  }

  private applyNext(frame: F): void {
    this.port.apply(frame);
    this.cursorValue = frame.relaySequence;
    this.port.ack(this.cursorValue);
  }

  /** Applies buffered frames while they are contiguous; frames left above a hole trigger recovery. */
  private drain(): void {
    for (;;) {
      const next = this.buffer.get(this.cursorValue + 1);
      if (next === undefined) break;
      this.buffer.delete(this.cursorValue + 1);
      this.applyNext(next);
    }
    if (this.buffer.size === 0) return;
    const smallest = Math.min(...this.buffer.keys());
    this.recover(smallest - 1);
  }

  private hold(frame: F): void {
    const s = frame.relaySequence;
    if (!this.buffer.has(s) && this.buffer.size >= this.maxBuffered) {
      // Keep the lowest sequences: they drain first; whatever is dropped is healed by a later recovery.
      const highest = Math.max(...this.buffer.keys());
      if (s > highest) {
        this.port.notify?.({ type: 'buffer-overflow', dropped: s });
        return;
      }
      this.buffer.delete(highest);
      this.port.notify?.({ type: 'buffer-overflow', dropped: highest });
    }
    this.buffer.set(s, frame);
  }
}
