/**
 * The follower side of an EventFeed: copies a topic of another process's local bus into this process's own local
 * log (same topic name), so this app's consumers (projections, with their checkpoints, lag and dead letters)
 * subscribe to their own bus unchanged, as if the other app published there.
 *
 * - Order and exactly-once: each remote partition's records are copied in offset order, and every page is written
 *   together with the position it reached (`LocalEventBus.appendMirrored`, one transaction): a restart, or a kill
 *   between two pages, resumes right after the last record copied.
 * - Another log: the remote log's identity changes when the serving app's data was wiped (its topic was created
 *   again). The mirror then copies the new log from offset 0 (logged once, `FEED_LOG_REPLACED`); what it copied of
 *   the old log stays in this log (consumers already saw it). A projection never applies over what it holds: the
 *   new log's events at versions a stream already applied are refused as conflicts (dead-lettered, logged).
 * - Records trimmed by the remote's retention before they were copied (a follower away longer than the retention)
 *   cannot be copied; the mirror logs `FEED_RECORDS_TRIMMED` with how many and goes on.
 * - Away or refusing: the mirror retries with a doubling, capped backoff and logs a failure's code at most once per
 *   `logIntervalMs` (with how many failures it suppressed), then `event feed mirror: following again` once it reads.
 * - Waiting: when caught up it long-polls (the server answers as soon as a record is published).
 * `state()` says what it is doing, for health details and metrics.
 */
import type { LocalEventBus } from '@trustmesh/platform-bus';
import type { Logger } from '@trustmesh/platform-logging';

import { FeedReadError, type FeedReader, type ReadTopicResponse } from './event-feed.client';
import { FEED_LIMITS } from './event-feed.limits';

export type FeedMirrorStatus = 'starting' | 'following' | 'retrying' | 'stopped';

export interface FeedMirrorState {
  topic: string;
  status: FeedMirrorStatus;
  /** The remote log being copied (null before the first answer). */
  remoteLog: string | null;
  /** Records copied by this process since it started. */
  copiedRecords: number;
  /** Records of the remote log not copied yet, as of the last answer (null before the first). */
  lagRecords: number | null;
  /** Failed reads in a row, and the last one's code (null when the last read succeeded). */
  failures: number;
  lastErrorCode: string | null;
  /** Since when the mirror is in its status (ISO 8601). */
  since: string;
}

export interface FeedMirrorOptions {
  /** This process's local bus: where the records are copied to, and where the position is kept. */
  bus: Pick<LocalEventBus, 'mirrorPosition' | 'appendMirrored'>;
  /** The topic, as both apps' code names it. */
  topic: string;
  read: FeedReader;
  logger: Logger;
  /** Backoff after a failed read: the first pause, doubling to `maxMs` (defaults 500 ms, 30 s). */
  retry?: { initialMs?: number; maxMs?: number };
  /** Long poll asked of the server when caught up (default 10 s, at most the server's bound). */
  waitMs?: number;
  /** Records asked per read (default 500). */
  maxRecords?: number;
  /** A failure's code is logged at most once per this interval (default 60 s). */
  logIntervalMs?: number;
}

/** A server that answered an empty long poll sooner than this did not wait: pause before asking again. */
const EARLY_EMPTY_ANSWER_MS = 50;
const EARLY_EMPTY_PAUSE_MS = 1_000;

export class TopicFeedMirror {
  private readonly stopping = new AbortController();
  private running?: Promise<void>;
  private remote?: { logIdentity: string; partitions: number };
  private current: FeedMirrorState;
  private lastLogged?: { code: string; at: number; suppressed: number };

  constructor(private readonly options: FeedMirrorOptions) {
    this.current = { topic: options.topic, status: 'starting', remoteLog: null, copiedRecords: 0, lagRecords: null, failures: 0, lastErrorCode: null, since: new Date().toISOString() };
  }

  /** Starts copying in the background; never throws (failures are retried and logged). */
  start(): void {
    this.running ??= this.run();
  }

  state(): FeedMirrorState {
    return { ...this.current };
  }

  /** Stops after the page in hand (a read in flight is cancelled); nothing half-written remains. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    this.enter('stopped');
  }

  private async run(): Promise<void> {
    const { initialMs = 500, maxMs = 30_000 } = this.options.retry ?? {};
    let backoff = initialMs;
    while (!this.stopping.signal.aborted) {
      try {
        const started = Date.now();
        const copied = await this.round();
        if (this.current.status !== 'following') {
          if (this.current.failures > 0) this.options.logger.log('info', 'event feed mirror: following again', { topic: this.options.topic, failures: this.current.failures });
          this.enter('following');
        }
        this.current.failures = 0;
        this.current.lastErrorCode = null;
        this.lastLogged = undefined;
        backoff = initialMs;
        if (copied === 0 && Date.now() - started < EARLY_EMPTY_ANSWER_MS) await this.pause(EARLY_EMPTY_PAUSE_MS);
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        this.failed(error);
        await this.pause(backoff);
        backoff = Math.min(backoff * 2, maxMs);
      }
    }
  }

  /** One read and its copy; the records copied. */
  private async round(): Promise<number> {
    const { topic, bus } = this.options;
    const signal = this.stopping.signal;
    if (!this.remote) {
      // Learn the remote log (identity, partition count) before asking for records.
      this.learn(await this.options.read({ topic, positions: [], maxRecords: 1, waitMs: 0 }, signal));
    }
    const remote = this.remote as { logIdentity: string; partitions: number };
    const position = await bus.mirrorPosition(topic);
    const sameLog = position.remoteLog === remote.logIdentity;
    const positions = Array.from({ length: remote.partitions }, (_, partition) => ({ partition, fromOffset: Number(sameLog ? (position.next.get(partition) ?? '0') : '0') }));
    const waitMs = Math.min(this.options.waitMs ?? 10_000, FEED_LIMITS.maxWaitMs);
    let answer: ReadTopicResponse;
    try {
      answer = await this.options.read({ topic, positions, maxRecords: Math.min(this.options.maxRecords ?? 500, FEED_LIMITS.maxRecords), waitMs }, signal);
    } catch (error) {
      // A position past the log's end, or a partition it lacks: the log is another one. Learn it again.
      if (error instanceof FeedReadError && (error.code === 'FEED_OFFSET_AHEAD' || error.code === 'FEED_PARTITION_UNKNOWN')) this.remote = undefined;
      throw error;
    }
    if (answer.logIdentity !== remote.logIdentity || answer.partitions !== remote.partitions) {
      this.learn(answer);
      return 0;
    }
    if (!sameLog && position.remoteLog !== null && answer.records.length > 0) {
      this.options.logger.log('warn', 'event feed mirror: the remote log was replaced; copying the new one from its start', { topic, code: 'FEED_LOG_REPLACED' });
    }
    const byPartition = new Map<number, ReadTopicResponse['records']>();
    for (const record of answer.records) {
      const records = byPartition.get(record.partition);
      if (records) records.push(record);
      else byPartition.set(record.partition, [record]);
    }
    let copied = 0;
    const next = new Map(positions.map(({ partition, fromOffset }) => [partition, fromOffset]));
    for (const [partition, records] of byPartition) {
      const fromOffset = next.get(partition) ?? 0;
      const first = records[0];
      if (first && first.offset > fromOffset) {
        this.options.logger.log('warn', 'event feed mirror: records were trimmed from the remote log before they were copied', { topic, partition, code: 'FEED_RECORDS_TRIMMED', trimmed: first.offset - fromOffset });
      }
      const outcome = await bus.appendMirrored(topic, {
        remoteLog: answer.logIdentity,
        partition,
        fromOffset: String(fromOffset),
        records: records.map((record) => ({ offset: String(record.offset), key: record.key, value: record.value, headers: record.headers })),
      });
      if (outcome === 'moved') return copied;
      copied += records.length;
      next.set(partition, (records[records.length - 1]?.offset ?? fromOffset - 1) + 1);
    }
    this.current.copiedRecords += copied;
    this.current.lagRecords = answer.endOffsets.reduce((sum, { partition, endOffset }) => sum + Math.max(0, endOffset - (next.get(partition) ?? 0)), 0);
    return copied;
  }

  private learn(answer: ReadTopicResponse): void {
    this.remote = { logIdentity: answer.logIdentity, partitions: answer.partitions };
    this.current.remoteLog = answer.logIdentity;
  }

  private failed(error: unknown): void {
    const code = error instanceof FeedReadError ? error.code : 'FEED_MIRROR_FAILED';
    this.current.failures += 1;
    this.current.lastErrorCode = code;
    if (this.current.status !== 'retrying') this.enter('retrying');
    const interval = this.options.logIntervalMs ?? 60_000;
    const now = Date.now();
    const last = this.lastLogged;
    if (last && last.code === code && now - last.at < interval) {
      last.suppressed += 1;
      return;
    }
    this.options.logger.log('warn', 'event feed mirror: cannot copy the remote topic; retrying', {
      topic: this.options.topic,
      code,
      failures: this.current.failures,
      ...(last?.suppressed ? { suppressed: last.suppressed } : {}),
      ...(error instanceof FeedReadError ? {} : { errorName: error instanceof Error ? error.name : 'unknown' }),
    });
    this.lastLogged = { code, at: now, suppressed: 0 };
  }

  private enter(status: FeedMirrorStatus): void {
    this.current.status = status;
    this.current.since = new Date().toISOString();
  }

  private pause(ms: number): Promise<void> {
    const signal = this.stopping.signal;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
