/**
 * kafkajs' own log lines, routed through the bus's `BusLogger` (`../bus-log.ts`).
 *
 * kafkajs attaches free-form `extra` objects to its log lines (requests, SASL settings, stacks, whole
 * errors). Rather than hoping to recognise every dangerous field, we keep an allowlist of fields
 * that only ever hold identifiers and counters, and turn errors into their class name (plus the
 * message for kafkajs' own errors).
 *
 * Levels: what the client or the adapter handles by itself is not an `error` (`kafkaLineLevel`). Repeats:
 * kafkajs writes a line per refused connection and retry; identical lines (same level, namespace, broker
 * and message shape) are collapsed to one per 30 s, with a count, and a success after connection failures
 * is logged once (`kafka-log.repeats.ts`).
 */
import { logLevel, type LogEntry, type logCreator } from 'kafkajs';

import { describeError, MAX_LOG_TEXT, type BusLogFields, type BusLogger, type BusLogLevel } from '../bus-log';
import { RepeatCollapser, type RepeatCollapserOptions } from './kafka-log.repeats';

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
 * kafkajs' connection layer logs every error response at ERROR, including the ones its callers handle as
 * part of normal operation (a rebalance answers heartbeats and offset commits with REBALANCE_IN_PROGRESS).
 * Whoever awaits the request reports a real failure, so these are demoted to debug. The namespace comes
 * apart from the message (`Connection`, `Response Heartbeat(key: 12, version: 3)`).
 */
const HANDLED_RESPONSE = /^Response /;

/**
 * What kafkajs reports of a group's coordination: a rebalance, a generation that moved on, a member the
 * coordinator forgot, a coordinator that moved or is loading. Each ends in a re-join that kafkajs or the
 * adapter does by itself, so it is the normal life of a group (members join, leave and restart), not an error.
 */
const GROUP_COORDINATION =
  /(The group is rebalancing|The coordinator is not aware of this member|Specified group generation id is not valid|This is not the correct coordinator for this group|The coordinator is loading|The coordinator is not available|re-joining the group)/;

/**
 * A connection to a broker that was lost, refused or timed out, or a request it took with it. kafkajs'
 * connection layer, broker pool and producer log each at ERROR, once per try, and retry it; a caller that
 * runs out of tries gets the error (a publish rejects; a consumer crashes and is restarted or recreated,
 * with the adapter's own line).
 */
const CONNECTION_FAILURE = /(Connection error: |Connection timeout|Closed connection|Failed to connect to (seed )?broker|Request .* timed out|KafkaJSConnection(Closed)?Error)/;

/** kafkajs gave up: its retries are exhausted, and whoever awaits the operation must act. */
const GIVE_UP = /KafkaJSNumberOfRetriesExceeded/;

/**
 * The level a kafkajs line is logged at. kafkajs logs at ERROR (or WARN) what the adapter handles:
 * - a handled error response of a request (debug);
 * - a lost or refused connection that kafkajs retries (warn), unless the line says it gave up;
 * - group coordination and its re-joins (info), named in the message or in its `error` field, also when it
 *   surfaces as a consumer "Crash" that kafkajs restarts from; and kafkajs' "Restarting the consumer" line
 *   (the adapter logs its own warn line when a consumer crashes and is restarted or recreated);
 * - any other consumer "Crash" (warn: kafkajs restarts a retriable one, the adapter recreates the rest).
 * Everything else keeps kafkajs' level.
 */
export function kafkaLineLevel(namespace: string, level: BusLogLevel, message: string, error = ''): BusLogLevel {
  if (level !== 'error' && level !== 'warn') return level;
  if (level === 'error' && namespace === 'Connection' && HANDLED_RESPONSE.test(message)) return 'debug';
  if (GROUP_COORDINATION.test(message) || GROUP_COORDINATION.test(error)) return 'info';
  if (level !== 'error') return level;
  if (namespace === 'Consumer' && /^Restarting the consumer in /.test(message)) return 'info';
  if (namespace === 'Consumer' && /^Crash: /.test(message)) return 'warn';
  if (!GIVE_UP.test(message) && isConnectionFailure(message, error)) return 'warn';
  return level;
}

/** Whether a kafkajs line reports a lost or refused connection (what a later success ends). */
export function isConnectionFailure(message: string, error = ''): boolean {
  return CONNECTION_FAILURE.test(message) || CONNECTION_FAILURE.test(error);
}

/**
 * What makes two lines repeats of one another: level, namespace, broker, and the message with its numbers
 * taken out (ports, retry counts, delays and correlation ids differ between repeats).
 */
export function repeatKey(namespace: string, level: BusLogLevel, message: string, fields: BusLogFields): string {
  const broker = typeof fields['broker'] === 'string' ? fields['broker'] : '';
  return [level, namespace, broker, message.replace(/\d+/g, '#')].join('\u0000');
}

export interface KafkaClientLog {
  /** kafkajs' `logCreator` option. */
  readonly logCreator: logCreator;
  /** An operation on the cluster succeeded (a publish, a health check, a group join): see `RepeatCollapser.answered`. */
  answered(): void;
}

/**
 * Routes kafkajs' lines through `logger`, with only the safe fields, at the level `kafkaLineLevel` gives;
 * warnings and errors have their repeats collapsed.
 */
export function kafkaClientLog(logger: BusLogger, options: RepeatCollapserOptions = {}): KafkaClientLog {
  const repeats = new RepeatCollapser(logger, options);
  const write = ({ namespace, level, log }: LogEntry) => {
    const { message, timestamp: _timestamp, logger: _logger, ...extra } = log;
    const mapped = LEVEL[level];
    if (!mapped) return;
    const text = String(message).slice(0, MAX_LOG_TEXT);
    const fields = safeFields(extra);
    const error = typeof fields['error'] === 'string' ? fields['error'] : '';
    const demoted = kafkaLineLevel(namespace, mapped, text, error);
    const line = `kafkajs ${namespace}: ${text}`;
    if (demoted !== 'error' && demoted !== 'warn') {
      logger.log(demoted, line, fields);
      return;
    }
    repeats.log({ level: demoted, message: line, fields, key: repeatKey(namespace, demoted, text, fields), connection: isConnectionFailure(text, error) });
  };
  return { logCreator: () => write, answered: () => repeats.answered() };
}

export function toKafkaLogLevel(level: BusLogLevel | 'nothing'): logLevel {
  return { nothing: logLevel.NOTHING, error: logLevel.ERROR, warn: logLevel.WARN, info: logLevel.INFO, debug: logLevel.DEBUG }[level];
}
