/**
 * Event buses for integration suites, the bus's own and other libraries' (`@trustmesh/platform-bus/testing`):
 * either adapter, built from a platform configuration as an app builds it, with consumer-group timings
 * short enough that tests which start and stop consumers often do not wait on them. Test code only:
 * production code imports `@trustmesh/platform-bus`.
 *
 *   describe.each(TEST_BUS_KINDS)('… over the %s bus', (kind) => {
 *     bus = await openTestBus(kind, { brokers: cluster.brokers, database, databaseConfig: testDb.config });
 */
import type { Database, DatabaseConfig } from '@trustmesh/platform-database';

import { jsonLineBusLogger } from '../bus-log';
import type { EventBus } from '../event-bus.port';
import { createKafkaEventBus } from '../kafka/kafka-event-bus.factory';
import type { ConsumerTuning } from '../kafka/kafka-subscription';
import { createLocalEventBus } from '../local/local-event-bus.factory';

/** The adapters a suite that uses a bus runs over: `describe.each(TEST_BUS_KINDS)`. */
export const TEST_BUS_KINDS = ['kafka', 'local'] as const;
export type TestBusKind = (typeof TEST_BUS_KINDS)[number];

/**
 * Kafka consumer timings for librdkafka's mock cluster. It holds an empty fetch for its whole max wait,
 * so fetches are short; a rebalance there lasts the session timeout less one second, so sessions are as
 * short as a real broker accepts (group.min.session.timeout.ms is 6 s by default), and the same tests
 * run against a real Kafka. A member that misses a rebalance (a busy CI machine) costs the group another
 * round or two, so `subscribe` may wait well past one rebalance before it gives up.
 */
export const KAFKA_TEST_TUNING = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 10_000,
  maxWaitTimeMs: 100,
  joinTimeoutMs: 60_000,
} as const satisfies Partial<ConsumerTuning>;

/** Tries and backoff of test buses: three quick tries, so a failing handler reaches the DLQ in well under a second. */
const SETTINGS = { topicPrefix: '', maxAttempts: 3, retryBackoffMs: 20, localPartitions: 4 };

export interface TestBusTarget {
  /** Bootstrap brokers of the Kafka cluster (`kafka`). */
  brokers?: readonly string[];
  /** The service's database and its configuration (`local`: the bus's tables sit beside the service's). */
  database?: Database;
  databaseConfig?: DatabaseConfig;
  /** The topic prefix (default none): another prefix is another log for the same service topic names. */
  topicPrefix?: string;
}

/**
 * A bus of `kind` over `target`; on a server database the bus's migrations must have been applied. It logs
 * warnings and errors only (JSON lines on stderr): a suite's output shows what went wrong, not every join.
 */
export async function openTestBus(kind: TestBusKind, { brokers, database, databaseConfig, topicPrefix = '' }: TestBusTarget): Promise<EventBus> {
  const settings = { ...SETTINGS, topicPrefix };
  const logger = jsonLineBusLogger('warn', (line) => void process.stderr.write(line), `platform-bus.${kind}`);
  if (kind === 'kafka') {
    if (!brokers) throw new Error('openTestBus: a kafka bus needs the brokers of a cluster.');
    return createKafkaEventBus({ bus: { adapter: 'kafka', kafka: { brokers: [...brokers], clientId: 'platform-test' }, ...settings } }, { consumer: KAFKA_TEST_TUNING, logger });
  }
  if (!database || !databaseConfig) throw new Error('openTestBus: a local bus needs a database and its configuration.');
  return createLocalEventBus({ bus: { adapter: 'local', kafka: null, ...settings }, database: databaseConfig }, database, { logger });
}
