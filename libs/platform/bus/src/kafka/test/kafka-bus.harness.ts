/**
 * What the Kafka adapter's integration specs share: consumer tuning for librdkafka's mock cluster,
 * buses that record their log lines, envelopes for many interleaved streams, and a handler that
 * records what it received. Real parts only: every bus here talks to a real (mock) cluster.
 */
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';

import type { BusRecord, RecordHandler } from '../../event-bus.port';
import { KafkaEventBus, type KafkaEventBusOptions } from '../kafka-event-bus';
import type { BusLogFields, BusLogger, BusLogLevel } from '../../bus-log';
import type { ConsumerTuning } from '../kafka-subscription';

/**
 * The mock holds an empty fetch for its whole max wait, so fetches are short; a rebalance there
 * lasts the session timeout less one second, so sessions are as short as a real broker accepts
 * (group.min.session.timeout.ms is 6 s by default), and the same tests run against a real Kafka.
 * A member that misses a rebalance (a busy CI machine) costs the group another round or two, so
 * `subscribe` may wait well past one rebalance before it gives up.
 */
export const TEST_TUNING: Partial<ConsumerTuning> = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 10_000,
  maxWaitTimeMs: 100,
  joinTimeoutMs: 60_000,
};

export interface LogLine {
  level: BusLogLevel;
  message: string;
  fields: BusLogFields;
}

export interface RecordingLogger extends BusLogger {
  readonly lines: LogLine[];
}

export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  return {
    lines,
    log(level, message, fields = {}) {
      lines.push({ level, message, fields });
    },
  };
}

export interface TestBus {
  bus: KafkaEventBus;
  logger: RecordingLogger;
}

export function testBus(brokers: string[], options: Partial<KafkaEventBusOptions> = {}): TestBus {
  const logger = recordingLogger();
  const bus = new KafkaEventBus({
    brokers,
    clientId: 'bus-spec',
    maxAttempts: 3,
    retryBackoffMs: 20,
    logger,
    ...options,
    consumer: { ...TEST_TUNING, ...options.consumer },
  });
  return { bus, logger };
}

/** `perStream` events for each of `streams` streams, interleaved round-robin as a busy producer would. */
export function interleavedEvents(streams: readonly string[], perStream: number): EventEnvelope[] {
  const envelopes: EventEnvelope[] = [];
  for (let version = 1; version <= perStream; version += 1) {
    for (const streamId of streams) {
      envelopes.push(createEnvelope({ eventType: 'CounterIncremented', data: { by: version } }, { streamId, streamVersion: version, producer: 'bus-spec@0' }));
    }
  }
  return envelopes;
}

export function streamIds(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
}

/** `streamId:streamVersion`, the identity of an event in these specs. */
export function eventKey(envelope: Pick<EventEnvelope, 'streamId' | 'streamVersion'>): string {
  return `${envelope.streamId}:${envelope.streamVersion}`;
}

export interface Recorder {
  handler: RecordHandler;
  readonly records: BusRecord[];
  keys(): string[];
  /** Stream versions in delivery order, per stream. */
  versionsByStream(): Map<string, number[]>;
}

export function recorder(before?: (record: BusRecord) => Promise<void> | void): Recorder {
  const records: BusRecord[] = [];
  return {
    records,
    handler: async (record) => {
      await before?.(record);
      records.push(record);
    },
    keys: () => records.map((record) => eventKey(record.envelope)),
    versionsByStream: () => {
      const byStream = new Map<string, number[]>();
      for (const { envelope } of records) byStream.set(envelope.streamId, [...(byStream.get(envelope.streamId) ?? []), envelope.streamVersion]);
      return byStream;
    },
  };
}

export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}
