/**
 * What only the Kafka adapter does, against a real Kafka-protocol cluster (librdkafka's mock, or
 * KAFKA_BROKERS): the producer's mode, and a member that leaves its group on SIGTERM. The port's
 * semantics, which the local adapter shares, are `../event-bus.contract.spec.ts`'s.
 */
import { uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { expectSeamlessHandover, interleavedEvents, recorder, streamIds } from '../test/bus-events';
import { startConsumerProcess } from '../test/consumer-process';
import { KAFKA_TEST_TUNING } from '../testing/test-buses';
import { testBus } from './test/kafka-bus.harness';

const cluster = useKafkaCluster();

describe('the Kafka bus', () => {
  it('publishes idempotently where the cluster allows it, and says so when it falls back', async () => {
    const { bus, logger } = testBus(cluster.brokers);
    try {
      await bus.publish(uniqueName('mode.probe'), interleavedEvents(['s'], 1));
      if (cluster.source === 'mock') {
        // librdkafka's mock names controller 0, which it does not have: kafkajs cannot get a producer id.
        expect(bus.producerMode).toBe('acks-all');
        expect(logger.lines).toContainEqual(
          expect.objectContaining({ level: 'warn', message: expect.stringContaining('publishing with acks=-1 and one request in flight') }),
        );
      } else {
        expect(['idempotent', 'acks-all']).toContain(bus.producerMode);
      }
    } finally {
      await bus.close();
    }
  }, 30_000);

  it('leaves its group on SIGTERM, so a successor takes over within the session timeout, seamlessly', async () => {
    const topic = uniqueName('sigterm.counters');
    const groupId = uniqueName('sigterm');
    const streams = streamIds('graceful', 4);
    const successor = testBus(cluster.brokers);
    const after = recorder();
    const member = startConsumerProcess({ BUS: 'kafka', KAFKA_BROKERS: cluster.brokers.join(','), TOPIC: topic, GROUP: groupId, GRACEFUL: '1', HANDLE_MS: '40' });
    try {
      await successor.bus.publish(topic, interleavedEvents(streams, 15));
      await waitUntil(() => member.handled().length >= 10 || member.stderr() !== '', { timeoutMs: 30_000, what: 'the member to be mid-stream' });
      member.kill('SIGTERM');
      const { code, at } = await member.exit;
      expect(code).toBe(0);
      const finished = member.handled();
      expect(finished.length).toBeLessThan(60);

      const subscription = await successor.bus.subscribe({ groupId, topics: [topic], handler: after.handler });
      // A member that did not leave would hold its partitions for its whole session timeout first
      // (librdkafka's mock then adds another rebalance of the same length).
      expect(Date.now() - at).toBeLessThan(KAFKA_TEST_TUNING.sessionTimeoutMs * 1.5);
      expect(subscription.assignedPartitions()[0]?.partitions.length).toBeGreaterThan(0);
      await waitUntil(() => finished.length + after.records.length >= 60, { timeoutMs: 15_000, what: 'the successor to catch up' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expectSeamlessHandover(finished, after.keys(), streams, 15);
    } finally {
      member.kill('SIGKILL');
      await successor.bus.close();
    }
  }, 120_000);
});
