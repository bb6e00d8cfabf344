/**
 * The swap of the bus's producer (`BusProducer.swap`: what the bus does once the cluster gives it an
 * idempotent producer after a fallback), against a real Kafka-protocol cluster. librdkafka's mock never
 * grants idempotence, so the spec swaps in a second plain producer itself: what the swap keeps (no send
 * lost, repeated or overtaken, the old producer disconnected after its sends) does not depend on the mode.
 */
import { Kafka, logLevel, Partitioners } from 'kafkajs';

import { createBrokerGate, readTopic, uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { recordingLogger } from '../test/bus-events';
import { BusProducer } from './kafka-producer';
import { withAdmin } from './test/kafka-bus.harness';

const cluster = useKafkaCluster();

describe('the bus producer', () => {
  it('swaps producers only once the sends in flight have settled: new sends wait, then go to the new one, and the old one disconnects', async () => {
    const topic = uniqueName('producer.swap');
    const gate = createBrokerGate();
    // The old producer reaches the cluster through a gate; while it is down, kafkajs keeps retrying its send.
    const gated = new Kafka({
      clientId: 'swap-old',
      brokers: cluster.brokers,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1_000,
      retry: { retries: 1_000, initialRetryTime: 50, maxRetryTime: 200 },
      socketFactory: gate.socketFactory,
    });
    const plain = new Kafka({ clientId: 'swap-next', brokers: cluster.brokers, logLevel: logLevel.NOTHING });
    const old = gated.producer({ maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    const next = plain.producer({ maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    await Promise.all([old.connect(), next.connect()]);
    const held = () => withAdmin(cluster.brokers, async (admin) => (await admin.fetchTopicOffsets(topic)).reduce((sum, { high, low }) => sum + Number(high) - Number(low), 0));
    await withAdmin(cluster.brokers, (admin) => admin.fetchTopicMetadata({ topics: [topic] }));

    const happened: string[] = [];
    old.on(old.events.DISCONNECT, () => happened.push('old disconnected'));
    const producer = new BusProducer({ producer: old, mode: 'acks-all' }, recordingLogger());
    const send = (value: string) => producer.send({ topic, acks: -1, messages: [{ key: 'one-stream', value }] }).then(() => happened.push(`${value} sent`));
    try {
      gate.down();
      const first = send('first');
      await waitUntil(() => gate.stats.refused >= 2, { timeoutMs: 10_000, what: 'the first send to be retried while the cluster is away' });
      const swapped = producer.swap({ producer: next, mode: 'acks-all' }).then(() => happened.push('swapped'));
      const second = send('second');
      await waitUntil(() => gate.stats.refused >= 4, { timeoutMs: 10_000, what: 'the first send to be retried again' });
      // The swap waits for the send in flight; the send made meanwhile waits for the swap, so nothing reached the new producer.
      expect(happened).toEqual([]);
      expect(await held()).toBe(0);

      gate.up();
      await Promise.all([first, swapped, second]);
      expect(happened[0]).toBe('first sent');
      expect([...happened].sort()).toEqual(['first sent', 'old disconnected', 'second sent', 'swapped']);
      expect(happened.indexOf('old disconnected')).toBeLessThan(happened.indexOf('swapped'));
      expect((await readTopic(cluster.brokers, topic, { minMessages: 2 })).map(({ value }) => value)).toEqual(['first', 'second']);
      expect(producer.mode).toBe('acks-all');
    } finally {
      gate.up();
      await producer.close();
      await old.disconnect();
    }
  }, 60_000);
});
