/**
 * What both adapters keep about transient handler failures (`isTransientFailure` in the port): per
 * partition of a member, the message the partition waits on, how many times in a row it failed
 * transiently and since when. A transient failure uses up no try: the message is tried again after the
 * same capped, doubling backoff as a counted retry (`retry-backoff.ts`), for as long as it takes. This
 * is what `Subscription.retrying()` reports, and what the adapter logs: the failure's stable code and the
 * position, never the error's text (it may quote the event's data), and for a message that stays stuck at
 * most one line per `TRANSIENT_LOG_INTERVAL_MS`, so an outage of hours does not flood the logs.
 */
import type { BusLogger } from './bus-log';
import { failureCode } from './dead-letter';
import type { RetryingPartition } from './event-bus.port';
import { retryDelayMs } from './retry-backoff';

/** Longest a partition stuck on a transiently failing message goes without a log line saying so. */
export const TRANSIENT_LOG_INTERVAL_MS = 30_000;

export interface MessagePosition {
  /** The topic as the adapter logs it (as stored, with any prefix). */
  topic: string;
  partition: number;
  offset: string;
}

interface Streak {
  position: MessagePosition;
  failures: number;
  since: number;
  code: string;
  loggedAt: number;
}

export interface TransientRetriesOptions {
  logger: BusLogger;
  /** Start of every line (`kafka consumer`, `local bus`), as the adapter's other lines have it. */
  logPrefix: string;
  groupId: string;
  retryBackoffMs: number;
  maxRetryBackoffMs: number;
  /** The topic name services use for a stored one (what `retrying()` reports). */
  serviceTopic: (storedTopic: string) => string;
}

export class TransientRetries {
  private readonly streaks = new Map<string, Streak>();

  constructor(private readonly options: TransientRetriesOptions) {}

  /** Records a transient failure of the message at `position`; returns how long to wait before its next try. */
  failed(position: MessagePosition, error: unknown): number {
    const { logger, logPrefix, groupId, retryBackoffMs, maxRetryBackoffMs } = this.options;
    const key = keyOf(position);
    const now = Date.now();
    let streak = this.streaks.get(key);
    if (!streak || streak.position.offset !== position.offset) {
      streak = { position, failures: 0, since: now, code: '', loggedAt: Number.NEGATIVE_INFINITY };
      this.streaks.set(key, streak);
    }
    streak.failures += 1;
    streak.code = failureCode(error);
    const delayMs = retryDelayMs(streak.failures, retryBackoffMs, maxRetryBackoffMs);
    if (now - streak.loggedAt >= TRANSIENT_LOG_INTERVAL_MS) {
      streak.loggedAt = now;
      logger.log('warn', `${logPrefix}: handler failed transiently; the partition waits on the message without using up a try`, {
        groupId,
        ...position,
        code: streak.code,
        transientFailures: streak.failures,
        stuckMs: now - streak.since,
        nextTryInMs: delayMs,
      });
    }
    return delayMs;
  }

  /**
   * The message at `position` is no longer retried transiently: it succeeded (logged when it had been
   * stuck), failed in a way that counts, or was let go (stop, rebalance).
   */
  settled(position: MessagePosition, succeeded: boolean): void {
    const key = keyOf(position);
    const streak = this.streaks.get(key);
    if (!streak || streak.position.offset !== position.offset) return;
    this.streaks.delete(key);
    if (!succeeded) return;
    const { logger, logPrefix, groupId } = this.options;
    logger.log('info', `${logPrefix}: handler succeeded after transient failures; the partition goes on`, {
      groupId,
      ...position,
      code: streak.code,
      transientFailures: streak.failures,
      stuckMs: Date.now() - streak.since,
    });
  }

  /** The partitions waiting on a transiently failing message, by topic and partition. */
  retrying(): RetryingPartition[] {
    return [...this.streaks.values()]
      .map(({ position, failures, since, code }) => ({
        topic: this.options.serviceTopic(position.topic),
        partition: position.partition,
        offset: position.offset,
        transientFailures: failures,
        since: new Date(since).toISOString(),
        code,
      }))
      .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }
}

function keyOf({ topic, partition }: MessagePosition): string {
  return `${topic}#${partition}`;
}
