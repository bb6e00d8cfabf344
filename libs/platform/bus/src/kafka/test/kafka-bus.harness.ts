/**
 * Kafka adapter buses for the specs: consumer tuning for librdkafka's mock cluster, and a logger that
 * keeps the bus's lines. Real parts only: every bus here talks to a real (mock) cluster.
 */
import { Kafka, logLevel } from 'kafkajs';

import { recordingLogger, type RecordingLogger } from '../../test/bus-events';
import { KafkaEventBus, type KafkaEventBusOptions } from '../kafka-event-bus';
import type { ConsumerTuning } from '../kafka-subscription';

/**
 * The mock holds an empty fetch for its whole max wait, so fetches are short; a rebalance there
 * lasts the session timeout less one second, so sessions are as short as a real broker accepts
 * (group.min.session.timeout.ms is 6 s by default), and the same tests run against a real Kafka.
 * A member that misses a rebalance (a busy CI machine) costs the group another round or two, so
 * `subscribe` may wait well past one rebalance before it gives up.
 */
export const TEST_TUNING: Partial<ConsumerTuning> & { sessionTimeoutMs: number } = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 10_000,
  maxWaitTimeMs: 100,
  joinTimeoutMs: 60_000,
};

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

/** A plain kafkajs admin client for checks below the adapter, disconnected after `work`. */
export async function withAdmin<T>(brokers: string[], work: (admin: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
  const admin = new Kafka({ clientId: 'bus-spec-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}
