/**
 * Logging for both bus adapters: every line goes through one small `BusLogger`, and nothing that
 * reaches it carries a message payload, a handler's error text or a credential. Errors are logged as
 * their class name (plus the message for kafkajs' own errors, whose texts are protocol facts, not
 * data). The kafka adapter routes kafkajs' lines through the same logger (`kafka/kafka-log.ts`).
 */
export type BusLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type BusLogFields = Record<string, string | number | boolean | null>;

export interface BusLogger {
  log(level: BusLogLevel, message: string, fields?: BusLogFields): void;
}

const RANK: Record<BusLogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Longest text of a field or an error description that reaches a log line. */
export const MAX_LOG_TEXT = 300;

const toStderr = (line: string) => void process.stderr.write(line);

/** One JSON line per entry, at or above `threshold`, on stderr unless `write` says otherwise; `name` is the line's `logger`. */
export function jsonLineBusLogger(threshold: BusLogLevel = 'info', write: (line: string) => void = toStderr, name = 'platform-bus'): BusLogger {
  return {
    log(level, message, fields) {
      if (RANK[level] < RANK[threshold]) return;
      write(`${JSON.stringify({ level, time: new Date().toISOString(), logger: name, message, ...fields })}\n`);
    },
  };
}

/** What an adapter logs through when it is given no logger: JSON lines on stderr from `info`, named after the adapter. */
export function defaultAdapterLogger(adapter: 'kafka' | 'local'): BusLogger {
  return jsonLineBusLogger('info', toStderr, `platform-bus.${adapter}`);
}

/** A log-safe description of an error: its class, and its text only when kafkajs wrote it. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    return error.name.startsWith('KafkaJS') ? `${error.name}: ${error.message}`.slice(0, MAX_LOG_TEXT) : error.name;
  }
  return typeof error;
}
