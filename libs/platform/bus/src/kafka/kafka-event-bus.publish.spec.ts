/**
 * Publishing and consuming through the Kafka adapter against a real Kafka-protocol cluster
 * (librdkafka's mock, or KAFKA_BROKERS): per-stream order, topics that do not exist yet, the
 * producer's mode, health, and what publish refuses.
 */
import { Kafka, logLevel } from 'kafkajs';

import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import { uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { partitionForKey } from '../partitioner';
import { BusError } from '../bus.error';
import { interleavedEvents, range, recorder, streamIds, testBus } from './test/kafka-bus.harness';

const cluster = useKafkaCluster();

async function clusterTopicPartitions(brokers: string[], topic: string): Promise<number[]> {
  const admin = new Kafka({ clientId: 'bus-spec-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).map(({ partition }) => partition);
  } finally {
    await admin.disconnect();
  }
}

async function clusterTopicHolds(brokers: string[], topic: string): Promise<number> {
  const admin = new Kafka({ clientId: 'bus-spec-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, { high, low }) => sum + Number(high) - Number(low), 0);
  } catch (error) {
    // A cluster that does not create topics on first use has no such topic: it holds nothing.
    if ((error as { type?: string }).type === 'UNKNOWN_TOPIC_OR_PARTITION') return 0;
    throw error;
  } finally {
    await admin.disconnect();
  }
}

describe('the Kafka bus', () => {
  it('delivers every stream in order, many streams interleaved across partitions, under the topic prefix', async () => {
    const prefix = `${uniqueName('env')}.`;
    const { bus } = testBus(cluster.brokers, { topicPrefix: prefix });
    const topic = 'ordering.counters.v1';
    const streams = streamIds('counter', 24);
    const events = interleavedEvents(streams, 20);
    const received = recorder();
    try {
      const subscription = await bus.subscribe({ groupId: uniqueName('ordering'), topics: [topic], handler: received.handler });
      // Several publish calls, as a service would make them; each call keeps its own order per key.
      for (let from = 0; from < events.length; from += 96) await bus.publish(topic, events.slice(from, from + 96));
      await waitUntil(() => received.records.length >= events.length, { timeoutMs: 20_000, what: 'every event' });

      expect(received.records).toHaveLength(events.length);
      for (const stream of streams) expect(received.versionsByStream().get(stream)).toEqual(range(1, 20));
      // One stream, one partition: the key (stream id) decides, and the topic is spread over all of them.
      const partitionsOf = new Map<string, Set<number>>();
      for (const { envelope, partition, key } of received.records) {
        expect(key).toBe(envelope.streamId);
        partitionsOf.set(envelope.streamId, (partitionsOf.get(envelope.streamId) ?? new Set()).add(partition));
      }
      for (const partitions of partitionsOf.values()) expect(partitions.size).toBe(1);
      // The partition is the one the shared partitioner (which the local adapter uses) computes.
      const partitionCount = (await clusterTopicPartitions(cluster.brokers, `${prefix}${topic}`)).length;
      for (const { key, partition } of received.records) expect(partition).toBe(partitionForKey(key, partitionCount));
      expect(new Set(received.records.map(({ partition }) => partition)).size).toBeGreaterThan(1);
      // Handlers see the service's topic name; the cluster holds the prefixed one.
      expect(new Set(received.records.map((record) => record.topic))).toEqual(new Set([topic]));
      expect(await clusterTopicHolds(cluster.brokers, `${prefix}${topic}`)).toBe(events.length);
      // Offsets increase within each partition, and the record carries the envelope whole.
      const lastOffset = new Map<number, bigint>();
      for (const { partition, offset } of received.records) {
        expect(BigInt(offset)).toBeGreaterThan(lastOffset.get(partition) ?? -1n);
        lastOffset.set(partition, BigInt(offset));
      }
      expect(received.records[0]!.envelope).toEqual(events.find((event) => event.eventId === received.records[0]!.envelope.eventId));
      expect(received.records.every(({ attempt }) => attempt === 1)).toBe(true);

      await waitUntil(async () => (await subscription.lag()).every(({ lag }) => lag === 0), { timeoutMs: 10_000, what: 'offsets committed' });
    } finally {
      await bus.close();
    }
  }, 120_000);

  it('delivers to a subscriber that came before its topic existed', async () => {
    const subscriber = testBus(cluster.brokers);
    const publisher = testBus(cluster.brokers);
    const earliest = recorder();
    const latest = recorder();
    const topic = uniqueName('fresh.topic');
    try {
      // Both subscribe first: neither the topic nor the groups exist yet.
      await Promise.all([
        subscriber.bus.subscribe({ groupId: uniqueName('fresh-earliest'), topics: [topic], handler: earliest.handler }),
        subscriber.bus.subscribe({ groupId: uniqueName('fresh-latest'), topics: [topic], handler: latest.handler, start: 'latest' }),
      ]);
      const events = interleavedEvents(streamIds('fresh', 8), 3);
      await publisher.bus.publish(topic, events);
      await waitUntil(() => earliest.records.length === events.length && latest.records.length === events.length, {
        timeoutMs: 15_000,
        what: 'both subscribers to receive every event',
      });
      expect(earliest.keys().sort()).toEqual(latest.keys().sort());
    } finally {
      await Promise.all([subscriber.bus.close(), publisher.bus.close()]);
    }
  }, 120_000);

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

  it('refuses what consumers could not read, and publishes nothing of it', async () => {
    const { bus } = testBus(cluster.brokers);
    const topic = uniqueName('refusals');
    const valid = interleavedEvents(['s'], 1)[0]!;
    const broken = { ...createEnvelope({ eventType: 'CounterIncremented', data: {} }, { streamId: 's', streamVersion: 2, producer: 'p@0' }), streamVersion: 0 };
    try {
      await expect(bus.publish(topic, [valid, broken as EventEnvelope])).rejects.toMatchObject({
        code: 'ENVELOPE_INVALID',
        message: expect.stringContaining('ENVELOPE_FIELD_INVALID (streamVersion)'),
      });
      await expect(bus.publish('not a topic!', [valid])).rejects.toMatchObject({ code: 'TOPIC_INVALID' });
      await expect(bus.subscribe({ groupId: '', topics: [topic], handler: async () => undefined })).rejects.toMatchObject({ code: 'SUBSCRIPTION_INVALID' });
      await expect(bus.subscribe({ groupId: 'g', topics: [topic], handler: async () => undefined, maxAttempts: 0 })).rejects.toBeInstanceOf(BusError);
      await bus.publish(topic, []);
      expect(await clusterTopicHolds(cluster.brokers, topic)).toBe(0);
    } finally {
      await bus.close();
    }
    await expect(bus.publish(topic, [valid])).rejects.toMatchObject({ code: 'BUS_CLOSED' });
  }, 30_000);

  it('reports health: ready while a broker answers, with a stable reason otherwise', async () => {
    const { bus } = testBus(cluster.brokers);
    expect(await bus.health()).toEqual({ adapter: 'kafka', ready: true });
    await bus.close();
    expect(await bus.health()).toEqual({ adapter: 'kafka', ready: false, reason: 'BUS_CLOSED' });

    // Nothing listens on port 1.
    const { bus: stranded } = testBus(['127.0.0.1:1'], { healthTimeoutMs: 1_500, retry: { retries: 1, initialRetryTime: 100 }, clientLogLevel: 'nothing' });
    try {
      expect(await stranded.health()).toEqual({ adapter: 'kafka', ready: false, reason: 'BROKER_UNREACHABLE' });
    } finally {
      await stranded.close();
    }
  }, 30_000);
});
