/**
 * Publishes the data plane's bus records off the latency path: `enqueue` only appends to a queue, and
 * one flush at a time sends what has accumulated (after `lingerMs`, at most `batchFrames` entries) in a
 * single `publish` call. One flush in flight at a time keeps each workspace's records in order; a failed
 * flush keeps its entries and retries with a doubling delay. The queue is bounded: past
 * `maxQueued` entries or `maxQueuedBytes` of frame text (a count alone lets 1 MiB frames hold gigabytes)
 * the oldest are given up (counted in `relay_bus_queue_drops_total`, logged as `bus-queue-dropped`, and
 * reported through `onDropped`, so whoever relies on `onPublished` knows a hole is behind it), so a bus
 * outage never grows memory without bound.
 *
 * The `RelayFramesSequenced` entries of one workspace and epoch in a batch share one envelope (up to
 * `GROUP_TEXT_BYTES` of frame text), even when other workspaces' entries come between them: with many
 * workspaces streaming at once, one bus message per workspace per flush instead of one per frame is what keeps
 * the log's cost per frame low. A workspace's records stay in order: its open envelope closes when a record of
 * another kind for it (or another epoch) comes, and later frames go to a new envelope after that record.
 * Records of different workspaces may be reordered among themselves (they are different streams and keys).
 */
import type { EventBus } from '@trustmesh/platform-bus';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import { activeTraceparent, outsideTraces } from '@trustmesh/platform-tracing';

import type { DataPlaneLogger } from './data-plane.log';
import type { DataPlaneMetrics } from './data-plane.metrics';
import { FRAMES_SEQUENCED, type FramesSequencedData, type SequencedItem } from './frames-bus.records';

/** Frame text one envelope carries at most (the bus refuses messages over 1 MiB by default). */
const GROUP_TEXT_BYTES = 256 * 1024;

interface Queued {
  workspaceId: string;
  eventType: string;
  data: unknown;
  enqueuedAt: number;
  /** The trace of the frame that caused the record (its envelope's `traceparent`; a group takes its first entry's). */
  traceparent: string | null;
  /** Characters of frame text the entry holds (its memory, near enough). */
  bytes: number;
  /** Published (removed from the queue when the flush ends). */
  sent?: boolean;
  /** Part of the batch being published: if the bound gives it up meanwhile, it is lost only if that publish fails. */
  inFlight?: boolean;
}

/** A record as the publisher's callbacks see it. */
export interface PublishedRecord {
  workspaceId: string;
  eventType: string;
  data: unknown;
}

export interface BatchingPublisherOptions {
  bus: EventBus;
  topic: string;
  producer: string;
  origin: string;
  batchFrames: number;
  lingerMs: number;
  maxQueued: number;
  maxQueuedBytes: number;
  /**
   * At most this many bus messages per `publish` call (default: all of a flush in one). An embedded database
   * is one connection and a transaction holds it from start to commit: a flush in a few transactions lets
   * other work on the database run between them instead of waiting behind the whole flush.
   */
  maxEnvelopesPerPublish?: number;
  metrics: DataPlaneMetrics;
  logger: DataPlaneLogger;
  /**
   * Called after each successful `publish` with the records it made durable, in order (the frames log's
   * durability decides when browser ACKs may reach the Companion).
   */
  onPublished?: (records: ReadonlyArray<PublishedRecord>) => void;
  /**
   * Called with the records the queue bound gave up, in order, once they are certainly lost (never published),
   * and always before any later record is reported by `onPublished`: the frames log's durability must not be
   * taken to cover them.
   */
  onDropped?: (records: ReadonlyArray<PublishedRecord>) => void;
}

export class BatchingPublisher {
  private queue: Queued[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private failures = 0;
  private queuedBytes = 0;
  /** Entries of the batch being published that the bound gave up meanwhile (lost if that publish fails). */
  private droppedInFlight: Queued[] = [];
  private closed = false;
  private readonly versions = new Map<string, number>();

  constructor(private readonly options: BatchingPublisherOptions) {}

  get pending(): number {
    return this.queue.length;
  }

  /** Characters of frame text queued. */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  enqueue(workspaceId: string, eventType: string, data: unknown): void {
    if (this.closed) return;
    const bytes = textOf(data).length;
    this.queue.push({ workspaceId, eventType, data, enqueuedAt: Date.now(), traceparent: activeTraceparent(), bytes });
    this.queuedBytes += bytes;
    let dropped = 0;
    while (this.queue.length - dropped > this.options.maxQueued || (this.queuedBytes > this.options.maxQueuedBytes && this.queue.length - dropped > 1)) {
      this.queuedBytes -= (this.queue[dropped] as Queued).bytes;
      dropped += 1;
    }
    if (dropped > 0) {
      const lost: Queued[] = [];
      for (const entry of this.queue.splice(0, dropped)) {
        if (entry.inFlight) this.droppedInFlight.push(entry);
        else lost.push(entry);
      }
      this.lost(lost);
    }
    this.schedule(this.options.lingerMs);
  }

  /** Records given up for good: counted, logged (how many, never their content) and reported. */
  private lost(entries: Queued[]): void {
    if (entries.length === 0) return;
    this.options.metrics.busQueueDrops({ topic: this.options.topic }, entries.length);
    this.options.logger.log('warn', 'bus-queue-dropped', { topic: this.options.topic, entries: entries.length, queued: this.queue.length });
    this.options.onDropped?.(entries);
  }

  /** Sends everything queued (used at shutdown); gives up after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.queue.length > 0 || this.flushing) && Date.now() < deadline) {
      if (!this.flushing) this.flush();
      await Promise.race([this.flushing, new Promise((resolve) => setTimeout(resolve, 50))]);
    }
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.flushing) return;
    // A flush carries the records of many frames: its publish span links to each frame's trace rather than
    // taking whichever frame scheduled the timer as its parent.
    this.timer = setTimeout(
      outsideTraces(() => {
        this.timer = undefined;
        this.flush();
      }),
      delayMs,
    );
    this.timer.unref();
  }

  private flush(): void {
    if (this.flushing || this.queue.length === 0) return;
    const batch = this.queue.slice(0, this.options.batchFrames);
    for (const entry of batch) entry.inFlight = true;
    const groups = this.envelopes(batch);
    const perPublish = Math.max(1, this.options.maxEnvelopesPerPublish ?? groups.length);
    const oldest = batch[0]?.enqueuedAt ?? Date.now();
    const publishAll = async () => {
      for (let start = 0; start < groups.length; start += perPublish) {
        const chunk = groups.slice(start, start + perPublish);
        await this.options.bus.publish(this.options.topic, chunk.map((group) => group.envelope));
        // A later chunk that fails leaves its entries (and everything after) queued, in order, for the retry.
        let count = 0;
        for (const group of chunk) {
          for (const entry of group.entries) entry.sent = true;
          count += group.entries.length;
        }
        this.options.metrics.busPublished({ topic: this.options.topic }, count);
        this.options.onPublished?.(chunk.flatMap((group) => group.entries));
      }
    };
    this.flushing = publishAll()
      .then(
        () => {
          this.failures = 0;
          this.options.metrics.busPublishLag({ topic: this.options.topic }, Date.now() - oldest);
        },
        (error: unknown) => {
          this.failures += 1;
          this.options.metrics.busPublishFailures({ topic: this.options.topic });
          this.options.logger.log('warn', 'bus-publish-failed', {
            topic: this.options.topic,
            entries: batch.length,
            errorName: error instanceof Error ? error.name : 'unknown',
          });
        },
      )
      .finally(() => {
        // Entries of the batch the bound gave up meanwhile are lost unless they went out. Reported before the
        // next flush, so before any later record is reported as published.
        const dropped = this.droppedInFlight.filter((entry) => !entry.sent);
        this.droppedInFlight = [];
        // Entries may have been dropped from the head meanwhile (queue bound); remove what was sent.
        this.queue = this.queue.filter((entry) => {
          if (entry.sent) this.queuedBytes -= entry.bytes;
          entry.inFlight = false;
          return !entry.sent;
        });
        this.lost(dropped);
        this.flushing = undefined;
        if (this.queue.length > 0 && !this.closed) {
          this.schedule(this.failures > 0 ? Math.min(5_000, 100 * 2 ** Math.min(this.failures, 6)) : 0);
        }
      });
  }

  /** The batch as bus messages, in order, each with the queue entries it carries. */
  private envelopes(batch: readonly Queued[]): Array<{ envelope: EventEnvelope; entries: Queued[] }> {
    const out: Array<{ envelope: EventEnvelope; entries: Queued[] }> = [];
    const open = new Map<string, { data: FramesSequencedData; bytes: number; entries: Queued[] }>();
    for (const entry of batch) {
      if (entry.eventType === FRAMES_SEQUENCED) {
        const data = entry.data as { epoch: string; item: SequencedItem };
        const bytes = data.item.text.length;
        const group = open.get(entry.workspaceId);
        if (group && group.data.epoch === data.epoch && group.bytes + bytes <= GROUP_TEXT_BYTES) {
          group.data.items.push(data.item);
          group.bytes += bytes;
          group.entries.push(entry);
          continue;
        }
        const started = { data: { origin: this.options.origin, epoch: data.epoch, items: [data.item] }, bytes, entries: [entry] };
        open.set(entry.workspaceId, started);
        out.push({ envelope: this.envelope(entry, FRAMES_SEQUENCED, started.data), entries: started.entries });
        continue;
      }
      open.delete(entry.workspaceId);
      out.push({ envelope: this.envelope(entry, entry.eventType, entry.data), entries: [entry] });
    }
    return out;
  }

  private envelope({ workspaceId, traceparent }: Queued, eventType: string, data: unknown): EventEnvelope {
    // Per-process counter: a position in this writer's contribution to the stream (the topic is the log).
    const version = (this.versions.get(workspaceId) ?? 0) + 1;
    this.versions.set(workspaceId, version);
    return createEnvelope({ eventType, data }, { streamId: workspaceId, streamVersion: version, producer: this.options.producer, traceparent });
  }
}

/** The frame text a record carries: a sequenced item's, or a routed frame's. */
function textOf(data: unknown): string {
  const record = data as { text?: unknown; item?: { text?: unknown } };
  const text = record.text ?? record.item?.text;
  return typeof text === 'string' ? text : '';
}
