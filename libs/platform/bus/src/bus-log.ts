/**
 * Logging for the Kafka adapter: our own lines and kafkajs' go through one small `BusLogger`, and
 * nothing that reaches it carries a message payload, a handler's error text or a credential.
 *
 * kafkajs attaches free-form `extra` objects to its log lines (requests, SASL settings, stacks, whole
 * errors). Rather than hoping to recognise every dangerous field, we keep an allowlist of fields
 * that only ever hold identifiers and counters, and turn errors into their class name (plus the
 * message for kafkajs' own errors, whose texts are protocol facts, not data).
 */
import { logLevel, type LogEntry, type logCreator } from 'kafkajs';

export type BusLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type BusLogFields = Record<string, string | number | boolean | null>;

export interface BusLogger {
  log(level: BusLogLevel, message: string, fields?: BusLogFields): void;
}

const RANK: Record<BusLogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One JSON line per entry on stderr, at or above `threshold`. */
export function jsonLineBusLogger(threshold: BusLogLevel = 'info', write: (line: string) => void = (line) => process.stderr.write(line)): BusLogger {
  return {
    log(level, message, fields) {
      if (RANK[level] < RANK[threshold]) return;
      write(`${JSON.stringify({ level, time: new Date().toISOString(), logger: 'platform-bus.kafka', message, ...fields })}\n`);
    },
  };
}

/** Fields of kafkajs log lines that hold only identifiers, positions and counters. */
const SAFE_FIELDS = new Set([
  'broker',
  'clientId',
  'groupId',
  'memberId',
  'leaderId',
  'generationId',
  'groupProtocol',
  'isLeader',
  'topic',
  'partition',
  'offset',
  'nodeId',
  'correlationId',
  'size',
  'retryCount',
  'retryTime',
  'retriable',
  'type',
  'code',
  'duration',
  'producerId',
  'producerEpoch',
]);
const MAX_TEXT = 300;

/** A log-safe description of an error: its class, and its text only when kafkajs wrote it. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    return error.name.startsWith('KafkaJS') ? `${error.name}: ${error.message}`.slice(0, MAX_TEXT) : error.name;
  }
  return typeof error;
}

export function safeFields(extra: Readonly<Record<string, unknown>>): BusLogFields {
  const fields: BusLogFields = {};
  for (const [name, value] of Object.entries(extra)) {
    if (name === 'error') {
      // kafkajs passes either an error's message (its own) or an Error object.
      fields['error'] = typeof value === 'string' ? value.slice(0, MAX_TEXT) : describeError(value);
    } else if (SAFE_FIELDS.has(name) && (typeof value === 'number' || typeof value === 'boolean' || value === null)) {
      fields[name] = value;
    } else if (SAFE_FIELDS.has(name) && typeof value === 'string') {
      fields[name] = value.slice(0, MAX_TEXT);
    }
  }
  return fields;
}

const LEVEL: Partial<Record<logLevel, BusLogLevel>> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * kafkajs' connection layer logs every error response at ERROR, including the ones its callers
 * handle as part of normal operation (a rebalance answers heartbeats with REBALANCE_IN_PROGRESS).
 * Whoever awaits the request reports a real failure, so these are demoted to debug.
 */
const HANDLED_RESPONSES = /^\[Connection\] Response /;

/** Routes kafkajs' log lines through `logger`, with only the safe fields. */
export function kafkaLogCreator(logger: BusLogger): logCreator {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _logger, ...extra } = log;
      const mapped = LEVEL[level];
      if (!mapped) return;
      const demoted = mapped === 'error' && HANDLED_RESPONSES.test(message) ? 'debug' : mapped;
      logger.log(demoted, `kafkajs ${namespace}: ${String(message).slice(0, MAX_TEXT)}`, safeFields(extra));
    };
}

export function toKafkaLogLevel(level: BusLogLevel | 'nothing'): logLevel {
  return { nothing: logLevel.NOTHING, error: logLevel.ERROR, warn: logLevel.WARN, info: logLevel.INFO, debug: logLevel.DEBUG }[level];
}
