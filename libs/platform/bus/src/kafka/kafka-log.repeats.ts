/**
 * How kafkajs' warnings and errors reach the log during an outage: the first line of a kind at once, its
 * identical repeats collapsed, and one line when the cluster answers again.
 *
 * kafkajs writes a line per refused connection, per broker, per retry of every client (producer, admin,
 * each consumer): a 25 s outage cost hundreds of error lines, which drowned the log and fired log-based
 * alerts hundreds of times for one incident. Here:
 * - a line whose key (level, namespace, broker, message shape: `kafka-log.ts`) was not logged within the
 *   last `intervalMs` is logged as it is;
 * - a repeat within the interval is counted, not logged; the next line of that key after the interval
 *   says how many were suppressed since the last one (`suppressed`, `suppressedForMs`);
 * - once an operation succeeds after connection failures (`answered()`), one `info` line says the cluster
 *   answers again, with the connection failures still unreported, and those keys are forgotten, so the
 *   first failure of the next outage is logged at once. At most one such line per interval: a cluster
 *   with one broker down while the others answer cannot turn it into a flood either.
 * Suppressed repeats that no later line reports (a burst that ends without a success after it) stay
 * counted until the next line of their key or the next success; nothing runs on a timer.
 *
 * Memory is bounded: at most `maxKeys` keys (least recently seen dropped first, its count reported as it
 * goes), and each key is a message already cut to `MAX_LOG_TEXT`. Random broker messages cannot grow it.
 */
import type { BusLogFields, BusLogger, BusLogLevel } from '../bus-log';

export const REPEAT_INTERVAL_MS = 30_000;
export const MAX_REPEAT_KEYS = 256;

export interface RepeatCollapserOptions {
  /** Shortest time between two lines of one key (default 30 s). */
  intervalMs?: number;
  /** Most keys remembered at once (default 256). */
  maxKeys?: number;
  /** The clock (milliseconds); tests pass their own. */
  now?: () => number;
}

/** One line to log, with what identifies its repeats. */
export interface RepeatableLine {
  level: BusLogLevel;
  message: string;
  fields: BusLogFields;
  /** Lines with the same key are repeats of one another. */
  key: string;
  /** A lost or refused connection: the kind of failure that a later success ends. */
  connection: boolean;
}

interface Seen {
  line: RepeatableLine;
  loggedAt: number;
  suppressed: number;
}

export class RepeatCollapser {
  private readonly intervalMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;
  /** In order of last occurrence, least recent first. */
  private readonly seen = new Map<string, Seen>();
  /** When the first connection failure since the cluster last answered was seen. */
  private failingSince?: number;
  private answeredLoggedAt?: number;

  constructor(
    private readonly logger: BusLogger,
    options: RepeatCollapserOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? REPEAT_INTERVAL_MS;
    this.maxKeys = Math.max(1, options.maxKeys ?? MAX_REPEAT_KEYS);
    this.now = options.now ?? Date.now;
  }

  /** Logs `line` now, or counts it as a repeat of its key's last line. */
  log(line: RepeatableLine): void {
    const now = this.now();
    if (line.connection) this.failingSince ??= now;
    const earlier = this.seen.get(line.key);
    if (earlier && now - earlier.loggedAt < this.intervalMs) {
      earlier.suppressed += 1;
      earlier.line = line;
      this.touch(line.key, earlier);
      return;
    }
    this.write(line, earlier?.suppressed ?? 0, earlier?.loggedAt, now);
    this.touch(line.key, { line, loggedAt: now, suppressed: 0 });
  }

  /**
   * An operation on the cluster succeeded (a publish, a health check, a group join). After connection
   * failures, logs that the cluster answers again, and forgets those failures.
   */
  answered(): void {
    if (this.failingSince === undefined) return;
    const now = this.now();
    if (this.answeredLoggedAt !== undefined && now - this.answeredLoggedAt < this.intervalMs) return;
    let suppressed = 0;
    for (const [key, entry] of this.seen) {
      if (!entry.line.connection) continue;
      suppressed += entry.suppressed;
      this.seen.delete(key);
    }
    this.logger.log('info', 'kafkajs: the cluster answers again', { failingForMs: now - this.failingSince, suppressed });
    this.failingSince = undefined;
    this.answeredLoggedAt = now;
  }

  private touch(key: string, entry: Seen): void {
    this.seen.delete(key);
    this.seen.set(key, entry);
    while (this.seen.size > this.maxKeys) {
      const [oldestKey, oldest] = this.seen.entries().next().value as [string, Seen];
      this.seen.delete(oldestKey);
      // Its count is reported rather than lost: its last line, with the others before it.
      if (oldest.suppressed > 0) this.write(oldest.line, oldest.suppressed - 1, oldest.loggedAt, this.now());
    }
  }

  /** Logs `line`, saying how many lines of its key were suppressed since one was logged at `loggedAt`. */
  private write(line: RepeatableLine, suppressed: number, loggedAt: number | undefined, now: number): void {
    if (suppressed <= 0 || loggedAt === undefined) {
      this.logger.log(line.level, line.message, line.fields);
      return;
    }
    const forMs = now - loggedAt;
    this.logger.log(line.level, `${line.message} (${suppressed} more like it suppressed since the last, ${Math.round(forMs / 1_000)} s ago)`, {
      ...line.fields,
      suppressed,
      suppressedForMs: forMs,
    });
  }
}
