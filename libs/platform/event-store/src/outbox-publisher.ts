/**
 * The outbox publisher: moves outbox rows to the bus in order, at least once, surviving restarts.
 *
 * Rows are written in the append's transaction, so an event that committed is never lost: if the
 * process dies between commit and publish, the rows stay unpublished and the next publisher (this
 * process restarted, or another replica once the outbox lease expires) publishes them. A batch is
 * marked published only after the bus accepted all of it (every `publish` call is awaited); a failure
 * leaves it pending and the loop retries with backoff. The store renews the outbox lease while a batch is
 * on its way; if the lease is lost meanwhile (another replica took it over after it ran out), the rest of
 * the batch is not published, nothing is marked (`OUTBOX_LEASE_LOST`), and this publisher only claims
 * again once the lease is free. Within a batch, consecutive rows for one topic go in one `publish` call, and
 * calls are sequential, so each stream reaches the bus in its append order.
 *
 * Published rows stay until the platform's maintenance purges them (`purgePublishedOutbox`, run by
 * `platform-maintenance` every interval, `TRUSTMESH_OUTBOX_RETENTION_MS`): publishing never waits on a purge.
 */
import type { EventBus } from '@trustmesh/platform-bus';

import type { EventStore, OutboxMessage } from './event-store';

export interface OutboxPublisherOptions {
  /** Rows per claim (default 100). */
  batchSize?: number;
  /** Pause when nothing is pending (default 200 ms); `kick()` cuts it short. */
  idleMs?: number;
  /**
   * How long a claim waits after the pause ends, for more appends to join its batch (default 0, as Kafka's
   * `linger.ms`). Under load a few milliseconds turn one claim, publish and mark per append into one per
   * batch; the price is that much more lag on the bus.
   */
  lingerMs?: number;
  /** Longest pause after consecutive failures (default 5 s); pauses double from `idleMs`. */
  maxBackoffMs?: number;
  /** Told about failures, with a stable code only. */
  onError?: (code: 'OUTBOX_PUBLISH_FAILED', attempt: number) => void;
}

export interface OutboxPublisherStats {
  published: number;
  failures: number;
  running: boolean;
}

export class OutboxPublisher {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** A `kick` came while a drain ran: the rows it announced may have been committed after that drain's claim. */
  private kicked = false;
  private published = 0;
  private failures = 0;
  private readonly batchSize: number;
  private readonly idleMs: number;
  private readonly maxBackoffMs: number;
  private readonly lingerMs: number;

  constructor(
    private readonly store: EventStore,
    private readonly bus: EventBus,
    private readonly options: OutboxPublisherOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 100;
    this.idleMs = options.idleMs ?? 200;
    this.maxBackoffMs = options.maxBackoffMs ?? 5_000;
    this.lingerMs = options.lingerMs ?? 0;
  }

  get stats(): OutboxPublisherStats {
    return { published: this.published, failures: this.failures, running: this.running };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Publishes now instead of after the idle pause (call it after an append). */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Finishes the batch in hand, then stops and gives the outbox lease up. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.store.releaseOutbox().catch(() => undefined);
  }

  /** Publishes everything pending once, for tools and tests; returns how many rows went out. */
  async drain(): Promise<number> {
    const count = await this.store.publishPending((batch, { signal }) => publishInOrder(this.bus, batch, signal), { batchSize: this.batchSize });
    this.published += count;
    return count;
  }

  private async run(): Promise<void> {
    let consecutiveFailures = 0;
    while (this.running) {
      let pause = this.idleMs;
      this.kicked = false;
      try {
        await this.drain();
        consecutiveFailures = 0;
        // `drain` stops at a short batch, so nothing was pending at its last claim; only rows committed
        // since (a kick says so) are worth another claim before the pause. A claim that finds nothing costs
        // a statement per append otherwise.
        if (this.kicked) continue;
      } catch {
        consecutiveFailures += 1;
        this.failures += 1;
        this.options.onError?.('OUTBOX_PUBLISH_FAILED', consecutiveFailures);
        pause = Math.min(this.maxBackoffMs, this.idleMs * 2 ** Math.min(consecutiveFailures, 16));
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      if (this.lingerMs > 0 && this.running) await new Promise<void>((resolve) => setTimeout(resolve, this.lingerMs));
    }
  }
}

/**
 * Publishes a batch, one call per run of consecutive rows with the same topic, in order, each awaited;
 * stops before the next call once `signal` is aborted (the outbox lease was lost).
 */
export async function publishInOrder(bus: EventBus, batch: readonly OutboxMessage[], signal?: AbortSignal): Promise<void> {
  let start = 0;
  while (start < batch.length && !signal?.aborted) {
    const topic = batch[start]?.topic;
    let end = start;
    while (end < batch.length && batch[end]?.topic === topic) end += 1;
    if (topic !== undefined) await bus.publish(topic, batch.slice(start, end).map((message) => message.envelope));
    start = end;
  }
}
