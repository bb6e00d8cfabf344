/**
 * What only the Kafka adapter does, against a real Kafka-protocol cluster (librdkafka's mock, or
 * KAFKA_BROKERS): the producer's mode, a member that leaves its group on SIGTERM, and rebalances (members
 * joining and leaving a group) logged below error, as the normal events they are, a producer that asks
 * again for idempotence after a fallback, a dead-letter write that fails holding only its own partition, and a
 * close that does not wait for a cluster that is away. The port's
 * semantics, which the local adapter shares, are `../event-bus.contract.spec.ts`'s.
 */
import type { EventEnvelope } from '@trustmesh/platform-events';
import { createBrokerGate, readTopic, uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { DLQ_HEADERS, deadLetterTopic, type PartitionLag } from '../event-bus.port';
import { partitionForKey } from '../partitioner';
import { event, eventKey, expectSeamlessHandover, interleavedEvents, latch, recorder, streamIds, versionsByStream } from '../test/bus-events';
import { startConsumerProcess } from '../test/consumer-process';
import { KAFKA_TEST_TUNING } from '../testing/test-buses';
import { testBus, withAdmin } from './test/kafka-bus.harness';

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

  it('asks the cluster again for an idempotent producer after a fallback, in the background, and publishes every event once meanwhile', async () => {
    const topic = uniqueName('idempotence.retry');
    const { bus, logger } = testBus(cluster.brokers, { idempotenceRetryMs: 50 });
    const streams = streamIds('retry', 3);
    const events = interleavedEvents(streams, 6);
    const askedAgain = () => logger.lines.filter(({ message }) => message.includes('still no idempotent producer id')).length;
    try {
      await bus.publish(topic, events.slice(0, 6));
      if (cluster.source !== 'mock' && bus.producerMode === 'idempotent') return;
      // librdkafka's mock refuses every time (controller 0): the bus keeps asking, and keeps publishing.
      expect(bus.producerMode).toBe('acks-all');
      expect(await bus.health()).toEqual({ adapter: 'kafka', ready: true, degraded: ['PRODUCER_NOT_IDEMPOTENT'] });
      await waitUntil(() => askedAgain() >= 1, { timeoutMs: 30_000, what: 'the bus to ask for an idempotent producer again' });
      await bus.publish(topic, events.slice(6, 12));
      const asked = askedAgain();
      await waitUntil(() => askedAgain() > asked, { timeoutMs: 30_000, what: 'the bus to ask once more' });
      await bus.publish(topic, events.slice(12));

      // Every event once, each stream in order (the topic is read by partition, then offset).
      const written = (await readTopic(cluster.brokers, topic, { minMessages: events.length })).map(({ value }) => eventKey(JSON.parse(value!) as EventEnvelope));
      expect(versionsByStream(written)).toEqual(new Map(streams.map((stream) => [stream, [1, 2, 3, 4, 5, 6]])));
      // Codes, never the error's text.
      expect(logger.lines).toContainEqual(
        expect.objectContaining({ level: 'warn', fields: { code: 'PRODUCER_NOT_IDEMPOTENT', reason: 'KafkaJSBrokerNotFound', nextTryInMs: 50 } }),
      );
      expect(logger.lines).toContainEqual(
        expect.objectContaining({ level: 'debug', fields: expect.objectContaining({ code: 'PRODUCER_NOT_IDEMPOTENT', reason: 'KafkaJSBrokerNotFound', attempt: 2 }) }),
      );
    } finally {
      await bus.close();
    }
  }, 90_000);

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

  it('logs rebalances and re-joins below error: a second member joins the group, then leaves it', async () => {
    const topic = uniqueName('rebalance.logs');
    const groupId = uniqueName('rebalance');
    const streams = streamIds('rebalance', 4);
    const first = testBus(cluster.brokers);
    const second = testBus(cluster.brokers);
    const seen = recorder();
    try {
      await first.bus.publish(topic, interleavedEvents(streams, 5));
      await first.bus.subscribe({ groupId, topics: [topic], handler: seen.handler });
      await waitUntil(() => seen.records.length >= 20, { timeoutMs: 60_000, what: 'the first member to consume' });
      // The second member's join makes the group rebalance; the first re-joins and gives up partitions.
      const joined = await second.bus.subscribe({ groupId, topics: [topic], handler: seen.handler });
      expect(joined.assignedPartitions()[0]?.partitions.length ?? 0).toBeGreaterThan(0);
      await first.bus.publish(topic, interleavedEvents(streams, 10).slice(20));
      await waitUntil(() => seen.records.length >= 40, { timeoutMs: 60_000, what: 'both members to consume after the rebalance' });
      // It leaves: the group rebalances again and the first takes every partition back.
      await second.bus.close();
      await first.bus.publish(topic, interleavedEvents(streams, 15).slice(40));
      await waitUntil(() => seen.records.length >= 60, { timeoutMs: 90_000, what: 'the first member to consume alone again' });
    } finally {
      await second.bus.close();
      await first.bus.close();
    }
    const lines = [...first.logger.lines, ...second.logger.lines];
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  }, 240_000);

  it('closes without the cluster: it finishes the message in hand, then lets a member that cannot leave its group go after its bound, with a warning', async () => {
    const topic = uniqueName('close.away');
    const gate = createBrokerGate();
    const publisher = testBus(cluster.brokers);
    // kafkajs would go on retrying the member's commit, its leave and its reconnects for as long as the cluster is away.
    const member = testBus(cluster.brokers, {
      socketFactory: gate.socketFactory,
      connectionTimeoutMs: 500,
      retry: { retries: 20, initialRetryTime: 50, maxRetryTime: 200 },
      consumer: { disconnectTimeoutMs: 500 },
      clientLogLevel: 'info',
    });
    // kafkajs says when it is done with the member the bus let go of (it goes on in the background).
    const letGo = () => member.logger.lines.some(({ fields }) => fields['code'] === 'CONSUMER_LEAVE_TIMEOUT');
    const endedByKafkajs = () => member.logger.lines.some(({ message }) => /kafkajs Consumer: (Stopped|Caught error when stopping)/.test(message));
    const entered = latch();
    const release = latch();
    const happened: string[] = [];
    const handled = recorder(async () => {
      entered.open();
      await release.promise;
      happened.push('handled');
    });
    try {
      await member.bus.subscribe({ groupId: uniqueName('close-away'), topics: [topic], handler: handled.handler });
      await publisher.bus.publish(topic, [event('slow', 1)]);
      await entered.promise;
      gate.down();
      const closing = member.bus.close().then(() => happened.push('closed'));
      // The close waits for the message in hand, well past its bound for the cluster...
      await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      expect(happened).toEqual([]);
      release.open();
      // ...and then not for the cluster, which stays away: kafkajs alone would retry for seconds (20 retries).
      await closing;
      expect(happened).toEqual(['handled', 'closed']);
      expect(gate.stats.refused).toBeGreaterThan(0);
      expect(member.logger.lines).toContainEqual(
        expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ code: 'CONSUMER_LEAVE_TIMEOUT', groupId: expect.stringContaining('close-away'), timeoutMs: 500 }) }),
      );
    } finally {
      release.open();
      gate.up();
      await member.bus.close();
      if (letGo()) await waitUntil(endedByKafkajs, { timeoutMs: 30_000, what: 'kafkajs to end the member the bus let go of' });
      await publisher.bus.close();
    }
  }, 60_000);

  it('holds only the partition whose dead-letter write fails: the others go on, and the message reaches the DLQ once it takes writes again', async () => {
    const topic = uniqueName('dlq.refused');
    const gate = createBrokerGate();
    const publisher = testBus(cluster.brokers);
    // The member's producer writes only its dead letters; kafkajs gives a refused write up after one retry.
    const member = testBus(cluster.brokers, { maxAttempts: 1, maxRetryBackoffMs: 200, retry: { retries: 1, initialRetryTime: 50 }, socketFactory: gate.socketFactory });
    const handled = recorder((record) => {
      if (eventKey(record.envelope) === 'poison:1') throw new Error('cannot apply');
    });
    const failedWrites = () => member.logger.lines.filter(({ message }) => message.includes('dead-letter write failed')).length;
    const lagOf = (lags: PartitionLag[], partition: number) => lags.find((lag) => lag.partition === partition)?.lag;
    try {
      gate.refuseWrites();
      const subscription = await member.bus.subscribe({ groupId: uniqueName('dlq-refused'), topics: [topic], handler: handled.handler });
      const partitions = await withAdmin(cluster.brokers, async (admin) => (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions.length);
      const poisonPartition = partitionForKey('poison', partitions);
      const others = streamIds('other', 12).filter((stream) => partitionForKey(stream, partitions) !== poisonPartition);
      expect(others.length).toBeGreaterThan(0);

      await publisher.bus.publish(topic, [event('poison', 1), event('poison', 2)]);
      await waitUntil(() => failedWrites() >= 2, { timeoutMs: 30_000, what: 'the dead-letter write to fail, twice' });
      // While the DLQ takes no writes, the member's other partitions are consumed...
      await publisher.bus.publish(topic, interleavedEvents(others, 2));
      await waitUntil(() => others.every((stream) => handled.versionsByStream().get(stream)?.length === 2), {
        timeoutMs: 30_000,
        what: 'the other partitions to be consumed while the dead-letter write fails',
      });
      // ...and the poison message's own partition waits on it: nothing after it handled, nothing committed.
      expect(gate.stats.writesRefused).toBeGreaterThanOrEqual(2);
      expect(handled.versionsByStream().get('poison')).toBeUndefined();
      expect(lagOf(await subscription.lag(), poisonPartition)).toBe(2);
      const dlqEnds = await withAdmin(cluster.brokers, (admin) => admin.fetchTopicOffsets(deadLetterTopic(topic)));
      expect(dlqEnds.map(({ high }) => high)).toEqual(dlqEnds.map(() => '0'));

      gate.acceptWrites();
      await waitUntil(() => handled.versionsByStream().get('poison')?.join() === '2', { timeoutMs: 30_000, what: 'the partition to go on past the dead letter' });
      await waitUntil(async () => lagOf(await subscription.lag(), poisonPartition) === 0, { timeoutMs: 10_000, what: 'the partition committed' });
      const letters = await readTopic(cluster.brokers, deadLetterTopic(topic));
      expect(letters.map(({ key, headers }) => [key, headers[DLQ_HEADERS.originOffset], headers[DLQ_HEADERS.attempts]])).toEqual([['poison', '0', '1']]);
      expect(member.logger.lines).toContainEqual(
        expect.objectContaining({ message: expect.stringContaining('message dead-lettered'), fields: expect.objectContaining({ offset: '0', failedWrites: failedWrites() }) }),
      );
    } finally {
      await member.bus.close();
      await publisher.bus.close();
    }
  }, 120_000);
});
