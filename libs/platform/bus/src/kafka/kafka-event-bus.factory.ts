/**
 * Builds the Kafka adapter from the validated platform configuration: brokers and client id
 * (`KAFKA_BROKERS`, `KAFKA_CLIENT_ID`), the group members' session timeout (`KAFKA_SESSION_TIMEOUT_MS`,
 * heartbeats at a third of it, at most every 3 s), topic prefix, tries and backoff. Anything the
 * configuration does not cover (other consumer tuning, logger) can be passed as overrides.
 */
import type { PlatformConfig } from '@trustmesh/platform-config';

import { BusError } from '../bus.error';
import { DEFAULT_CONSUMER_TUNING, KafkaEventBus, type KafkaEventBusOptions } from './kafka-event-bus';

export function createKafkaEventBus(config: Pick<PlatformConfig, 'bus'>, overrides: Partial<KafkaEventBusOptions> = {}): KafkaEventBus {
  const { kafka, topicPrefix, maxAttempts, retryBackoffMs } = config.bus;
  if (!kafka) {
    throw new BusError('KAFKA_NOT_CONFIGURED', 'The kafka bus needs a cluster: set TRUSTMESH_BUS=kafka and KAFKA_BROKERS=host:port,...');
  }
  const sessionTimeoutMs = kafka.sessionTimeoutMs ?? DEFAULT_CONSUMER_TUNING.sessionTimeoutMs;
  const session = { sessionTimeoutMs, heartbeatIntervalMs: Math.min(DEFAULT_CONSUMER_TUNING.heartbeatIntervalMs, Math.floor(sessionTimeoutMs / 3)) };
  return new KafkaEventBus({
    brokers: kafka.brokers,
    clientId: kafka.clientId,
    topicPrefix,
    maxAttempts,
    retryBackoffMs,
    ...overrides,
    consumer: { ...session, ...overrides.consumer },
  });
}
