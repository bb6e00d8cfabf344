/**
 * Kafka adapter buses for the specs, with the test consumer timings (`KAFKA_TEST_TUNING`) and a logger
 * that keeps the bus's lines. Real parts only: every bus here talks to a real (mock) cluster.
 */
import { Kafka, logLevel } from 'kafkajs';

import { recordingLogger, type RecordingLogger } from '../../test/bus-events';
import { KAFKA_TEST_TUNING } from '../../testing/test-buses';
import { KafkaEventBus, type KafkaEventBusOptions } from '../kafka-event-bus';

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
    consumer: { ...KAFKA_TEST_TUNING, ...options.consumer },
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
