/**
 * Logging for both bus adapters: every line goes through the platform's one logger port (`BusLogger` is
 * `@trustmesh/platform-logging`'s `Logger`), so an app hands the bus its own logger and the bus's lines come
 * out in the app's shape (`service`, `replica`, `component`). Nothing that reaches it carries a message
 * payload, a handler's error text or a credential. Errors are logged as their class name (plus the message
 * for kafkajs' own errors, whose texts are protocol facts, not data). The kafka adapter routes kafkajs' lines
 * through the same logger (`kafka/kafka-log.ts`).
 */
import { createPinoLogger, type Logger, type LogLevel } from '@trustmesh/platform-logging';

export type BusLogLevel = LogLevel;
export type BusLogFields = Record<string, string | number | boolean | null>;
export type BusLogger = Logger;

/** Longest text of a field or an error description that reaches a log line. */
export const MAX_LOG_TEXT = 300;

const toStderr = (line: string) => void process.stderr.write(line);

/**
 * The platform's JSON line per entry, at or above `threshold`, on stderr unless `write` says otherwise; `name`
 * is the line's `component` (the service is `platform-bus`: an app that runs the bus passes its own logger).
 */
export function jsonLineBusLogger(threshold: BusLogLevel = 'info', write: (line: string) => void = toStderr, name = 'platform-bus'): BusLogger {
  return createPinoLogger({ service: 'platform-bus', level: threshold, write, context: { component: name } });
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
