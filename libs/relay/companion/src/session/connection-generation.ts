/**
 * One connection generation (BEHAVIOUR.md §6): each connect of the transport gets its own serialized
 * send queue and its own `advertisedThrough` (−1 at start), the highest sequence whose send completed on
 * this connection; a sent gap raises it to the gap's `through`. Because sends are serialized,
 * `advertisedThrough` is a contiguous prefix. A failed send ends the generation.
 *
 * The queue is bounded by the bytes of frame text waiting in it (`maxBacklogBytes`): a relay that stops
 * reading would otherwise make the Companion hold every event and response it produces. Past the bound the
 * generation ends (`send-backlog`) and the host reconnects; the sequenced frames are still in the replay
 * buffer (itself bounded), and the next generation replays them or a gap.
 */
export type OutboundItem =
  | { kind: 'sequenced'; sequence: number; text: string }
  | { kind: 'gap'; through: number; text: string }
  | { kind: 'response'; text: string; plaintext: boolean };

export type SendFrame = (frameText: string) => Promise<void>;

export class ConnectionGeneration {
  private sentThrough = -1;
  private live = true;
  private tail: Promise<unknown> = Promise.resolve();
  private backlogBytes = 0;
  framesSent = 0;

  constructor(
    readonly id: number,
    private readonly send: SendFrame,
    private readonly encode: (item: OutboundItem) => Promise<string>,
    private readonly failed: (generation: ConnectionGeneration, code: string) => void,
    private readonly maxBacklogBytes = Number.POSITIVE_INFINITY,
  ) {}

  get alive(): boolean {
    return this.live;
  }

  get advertisedThrough(): number {
    return this.sentThrough;
  }

  /** Queues a frame behind every frame queued before it; resolves `true` once it was sent. */
  enqueue(item: OutboundItem): Promise<boolean> {
    const bytes = item.text.length;
    if (this.live && this.backlogBytes > 0 && this.backlogBytes + bytes > this.maxBacklogBytes) {
      this.failed(this, 'send-backlog');
      return Promise.resolve(false);
    }
    this.backlogBytes += bytes;
    const sent = this.tail
      .then(() => this.deliver(item))
      .finally(() => {
        this.backlogBytes -= bytes;
      });
    this.tail = sent;
    return sent;
  }

  /** Characters of frame text queued and not yet sent. */
  get backlog(): number {
    return this.backlogBytes;
  }

  /** Resolves when everything queued so far was sent or skipped. */
  drained(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  end(): void {
    this.live = false;
  }

  private async deliver(item: OutboundItem): Promise<boolean> {
    if (!this.live) return false;
    let text: string;
    try {
      text = await this.encode(item);
    } catch {
      this.failed(this, 'encode-failed');
      return false;
    }
    if (!this.live) return false;
    try {
      await this.send(text);
    } catch {
      this.failed(this, 'send-failed');
      return false;
    }
    this.framesSent += 1;
    if (item.kind === 'sequenced') this.sentThrough = Math.max(this.sentThrough, item.sequence);
    else if (item.kind === 'gap') this.sentThrough = Math.max(this.sentThrough, item.through);
    return true;
  }
}
