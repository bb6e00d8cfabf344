/**
 * A Kafka cluster for one test file: `useKafkaCluster()` at the top of a spec starts librdkafka's
 * mock cluster in `beforeAll` and stops it in `afterAll`. When `KAFKA_BROKERS` is set, the file runs
 * against that Kafka instead and kcat is not started.
 *
 * Tests that cannot fail are not tests: without kcat (and without `KAFKA_BROKERS`) the file fails,
 * in CI and on a workstation alike, with a message that says what to install.
 */
import { KafkaMockError, startKafkaMock, type KafkaMockOptions } from './kafka-mock';

/**
 * Consumer-group members' session timeout for services run against librdkafka's mock cluster (the brokers'
 * minimum; set as `KAFKA_SESSION_TIMEOUT_MS`). The mock answers a follower whose SyncGroup arrives after the
 * leader's with INVALID_REQUEST (a real broker hands it its assignment), which kafkajs does not retry: the
 * service recreates its consumer, and the mock waits a session timeout before the next election. With
 * replicas starting together on a busy machine that can happen several times in a row; at 30 s a round it
 * outlasts the join timeout, at 6 s it does not.
 */
export const MOCK_CLUSTER_SESSION = { KAFKA_SESSION_TIMEOUT_MS: '6000' } as const;

export interface KafkaClusterHandle {
  /** `mock`: librdkafka's mock cluster, started for this file; `external`: the Kafka of `KAFKA_BROKERS`. */
  readonly source: 'mock' | 'external';
  /** `host:port` of the bootstrap brokers. */
  readonly brokers: string[];
  stop(): Promise<void>;
}

export interface KafkaClusterOptions extends KafkaMockOptions {
  /** The environment to read `KAFKA_BROKERS` and `CI` from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Resolves the cluster a test run uses: `KAFKA_BROKERS` when set, else a fresh mock cluster. */
export async function provideKafkaCluster(options: KafkaClusterOptions = {}): Promise<KafkaClusterHandle> {
  const { env = process.env, ...mockOptions } = options;
  const external = (env['KAFKA_BROKERS'] ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');
  if (external.length > 0) return { source: 'external', brokers: external, stop: async () => undefined };
  try {
    const mock = await startKafkaMock(mockOptions);
    return { source: 'mock', brokers: mock.bootstrapServers, stop: () => mock.stop() };
  } catch (error) {
    if (error instanceof KafkaMockError && error.code === 'KCAT_MISSING') {
      const advice = env['CI']
        ? 'CI must provide kcat (.ci/run installs it): the Kafka tier fails rather than skips.'
        : 'Or set KAFKA_BROKERS=host:port,... to run these tests against a running Kafka. They fail rather than skip.';
      throw new KafkaMockError('KCAT_MISSING', `${error.message} ${advice}`);
    }
    throw error;
  }
}

export interface KafkaCluster {
  readonly source: 'mock' | 'external';
  readonly brokers: string[];
}

/**
 * Registers `beforeAll`/`afterAll` hooks that provide a cluster to the calling spec file; read
 * `brokers` inside tests and hooks (the cluster does not exist yet while the file is collected).
 *
 * Jest runs the `afterAll` hooks of a block in the order they were declared (not in reverse), so in the
 * same block declare the `afterAll` that stops the apps and buses using the cluster before this call, and
 * the `beforeAll` that starts them after it. Stopped first, the cluster would leave each client waiting
 * out its group leave and disconnect bounds (a child service, its whole SIGKILL grace).
 */
export function useKafkaCluster(options: KafkaClusterOptions = {}): KafkaCluster {
  let handle: KafkaClusterHandle | undefined;
  const current = (): KafkaClusterHandle => {
    if (!handle) throw new Error('useKafkaCluster: the cluster starts in beforeAll; read it inside a test or a hook.');
    return handle;
  };
  beforeAll(async () => {
    handle = await provideKafkaCluster(options);
  }, (options.startTimeoutMs ?? 15_000) + 5_000);
  afterAll(async () => {
    await handle?.stop();
  });
  return {
    get source() {
      return current().source;
    },
    get brokers() {
      return current().brokers;
    },
  };
}
