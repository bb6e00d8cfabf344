/**
 * kafkajs' own log lines, routed through the bus's `BusLogger` (`../bus-log.ts`).
 *
 * kafkajs attaches free-form `extra` objects to its log lines (requests, SASL settings, stacks, whole
 * errors). Rather than hoping to recognise every dangerous field, we keep an allowlist of fields
 * that only ever hold identifiers and counters, and turn errors into their class name (plus the
 * message for kafkajs' own errors).
 */
import { logLevel, type LogEntry, type logCreator } from 'kafkajs';

import { describeError, MAX_LOG_TEXT, type BusLogFields, type BusLogger, type BusLogLevel } from '../bus-log';

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

function safeFields(extra: Readonly<Record<string, unknown>>): BusLogFields {
  const fields: BusLogFields = {};
  for (const [name, value] of Object.entries(extra)) {
    if (name === 'error') {
      // kafkajs passes either an error's message (its own) or an Error object.
      fields['error'] = typeof value === 'string' ? value.slice(0, MAX_LOG_TEXT) : describeError(value);
    } else if (SAFE_FIELDS.has(name) && (typeof value === 'number' || typeof value === 'boolean' || value === null)) {
      fields[name] = value;
    } else if (SAFE_FIELDS.has(name) && typeof value === 'string') {
      fields[name] = value.slice(0, MAX_LOG_TEXT);
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
      logger.log(demoted, `kafkajs ${namespace}: ${String(message).slice(0, MAX_LOG_TEXT)}`, safeFields(extra));
    };
}

export function toKafkaLogLevel(level: BusLogLevel | 'nothing'): logLevel {
  return { nothing: logLevel.NOTHING, error: logLevel.ERROR, warn: logLevel.WARN, info: logLevel.INFO, debug: logLevel.DEBUG }[level];
}
