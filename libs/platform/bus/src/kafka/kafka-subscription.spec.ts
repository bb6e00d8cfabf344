/**
 * A group member kafkajs gives up on, against a real Kafka-protocol cluster. kafkajs abandons a member whose
 * join fails with an error it does not retry (librdkafka's mock sometimes answers a SyncGroup that way);
 * here a partition assigner that refuses its first assignments makes that happen on demand, so the member
 * the subscription recreates is abandoned in its own first join too.
 */
import { Kafka, logLevel, PartitionAssigners, type Admin, type PartitionAssigner } from 'kafkajs';

import { uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { interleavedEvents, recorder, recordingLogger, streamIds, versionsByStream } from '../test/bus-events';
import { KAFKA_TEST_TUNING } from '../testing/test-buses';
import { KafkaSubscription, type SubscriptionRuntime } from './kafka-subscription';
import { testBus } from './test/kafka-bus.harness';

const cluster = useKafkaCluster();

/** The round-robin assigner, refusing its first `refusals` assignments with an error kafkajs does not retry. */
function refusingAssigner(refusals: number): PartitionAssigner {
  let left = refusals;
  return (config) => {
    const roundRobin = PartitionAssigners.roundRobin(config);
    return {
      ...roundRobin,
      assign: async (group) => {
        if (left > 0) {
          left -= 1;
          throw new Error('assignment refused (test)');
        }
        return roundRobin.assign(group);
      },
    };
  };
}

it('replaces a member kafkajs gives up on, also when the replacement is given up in its own first join', async () => {
  const topic = uniqueName('recreate.counters');
  const streams = streamIds('recreate', 3);
  const publisher = testBus(cluster.brokers);
  const logger = recordingLogger();
  const kafka = new Kafka({ clientId: 'subscription-spec', brokers: cluster.brokers, logLevel: logLevel.NOTHING });
  // The first member and its first replacement are abandoned mid-join; the second replacement joins.
  const assigner = refusingAssigner(2);
  const consumer = kafka.consumer.bind(kafka);
  kafka.consumer = (config) => consumer({ ...config, partitionAssigners: [assigner] });
  let admin: Admin | undefined;
  const runtime: SubscriptionRuntime = {
    kafka,
    admin: async () => {
      if (!admin) {
        admin = kafka.admin();
        await admin.connect();
      }
      return admin;
    },
    deadLetter: () => Promise.reject(new Error('no dead letters expected')),
    logger,
    answered: () => undefined,
    tuning: { ...KAFKA_TEST_TUNING, partitionsConsumedConcurrently: 1, disconnectTimeoutMs: 5_000 },
    retryBackoffMs: 20,
    maxRetryBackoffMs: 200,
    serviceTopic: (clusterTopic) => clusterTopic,
    clusterId: async () => (await (await runtime.admin()).describeCluster()).clusterId,
  };
  const seen = recorder();
  let subscription: KafkaSubscription | undefined;
  try {
    await publisher.bus.publish(topic, interleavedEvents(streams, 5));
    subscription = await KafkaSubscription.start(
      runtime,
      { groupId: uniqueName('recreate'), topics: [topic], handler: seen.handler, start: 'earliest', maxAttempts: 3 },
      { added: () => undefined, removed: () => undefined },
    );
    await waitUntil(() => seen.records.length >= 15, { timeoutMs: 30_000, what: 'the recreated member to consume' });
    expect(versionsByStream(seen.keys())).toEqual(new Map(streams.map((stream) => [stream, [1, 2, 3, 4, 5]])));
    const recreating = logger.lines.filter(({ fields }) => fields['code'] === 'CONSUMER_RECREATING');
    expect(recreating.map(({ fields }) => fields['attempt'])).toEqual([1, 2]);
    expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'info', message: 'kafka consumer: recreated', fields: expect.objectContaining({ attempt: 2 }) }));
  } finally {
    await subscription?.stop();
    await admin?.disconnect();
    await publisher.bus.close();
  }
}, 120_000);
