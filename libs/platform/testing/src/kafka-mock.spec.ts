import { createConnection } from 'node:net';

import { Kafka, logLevel, Partitioners } from 'kafkajs';

import { provideKafkaCluster } from './kafka-cluster.fixture';
import { KafkaMockError, startKafkaMock } from './kafka-mock';
import { readTopic } from './kafka-topic.reader';
import { uniqueName } from './unique-name';

function canConnect(address: string): Promise<boolean> {
  const separator = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = createConnection({ host: address.slice(0, separator), port: Number(address.slice(separator + 1)) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the Kafka mock cluster', () => {
  it('starts with every broker answering, carries messages, and frees its ports when stopped', async () => {
    const mock = await startKafkaMock({ brokers: 3 });
    try {
      expect(mock.bootstrapServers).toHaveLength(3);
      for (const address of mock.bootstrapServers) expect(address).toMatch(/^127\.0\.0\.1:\d+$/);

      const kafka = new Kafka({ clientId: 'kafka-mock-spec', brokers: mock.bootstrapServers, logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      const cluster = await admin.describeCluster();
      await admin.disconnect();
      expect(cluster.brokers).toHaveLength(3);

      const topic = uniqueName('kafka-mock.probe');
      const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: 'hello', headers: { h: 'v' } }] });
      await producer.disconnect();
      const [message, ...rest] = await readTopic(mock.bootstrapServers, topic);
      expect(rest).toEqual([]);
      expect(message).toMatchObject({ key: 'k', value: 'hello', headers: { h: 'v' } });
    } finally {
      await mock.stop();
    }
    for (const address of mock.bootstrapServers) expect(await canConnect(address)).toBe(false);
    await expect(mock.exited).resolves.toBeUndefined();
    await mock.stop(); // idempotent
  }, 30_000);

  it('runs several clusters side by side, each on its own ports', async () => {
    const [one, two] = await Promise.all([startKafkaMock({ brokers: 1 }), startKafkaMock({ brokers: 2 })]);
    try {
      expect(one.bootstrapServers).toHaveLength(1);
      expect(two.bootstrapServers).toHaveLength(2);
      expect(new Set([...one.bootstrapServers, ...two.bootstrapServers]).size).toBe(3);
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  }, 30_000);

  it('says what to install when kcat is missing', async () => {
    const attempt = startKafkaMock({ kcatPath: '/nonexistent/kcat' });
    await expect(attempt).rejects.toBeInstanceOf(KafkaMockError);
    await expect(attempt).rejects.toMatchObject({ code: 'KCAT_MISSING', message: expect.stringContaining("install Debian's kcat package") });
  });

  it('refuses a nonsensical broker count', async () => {
    await expect(startKafkaMock({ brokers: 0 })).rejects.toMatchObject({ code: 'KAFKA_MOCK_OPTIONS_INVALID' });
  });
});

describe('the Kafka cluster of a test run', () => {
  it('is the Kafka named by KAFKA_BROKERS when set, without starting kcat', async () => {
    const cluster = await provideKafkaCluster({ env: { KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9092' }, kcatPath: '/nonexistent/kcat' });
    expect(cluster).toMatchObject({ source: 'external', brokers: ['kafka-1:9092', 'kafka-2:9092'] });
    await cluster.stop();
  });

  it('is a mock cluster otherwise, and fails (never skips) without kcat, in CI and outside', async () => {
    await expect(provideKafkaCluster({ env: { CI: 'true' }, kcatPath: '/nonexistent/kcat' })).rejects.toMatchObject({
      code: 'KCAT_MISSING',
      message: expect.stringContaining('CI must provide kcat'),
    });
    await expect(provideKafkaCluster({ env: {}, kcatPath: '/nonexistent/kcat' })).rejects.toMatchObject({
      code: 'KCAT_MISSING',
      message: expect.stringContaining('KAFKA_BROKERS'),
    });
    const cluster = await provideKafkaCluster({ env: {}, brokers: 1 });
    try {
      expect(cluster.source).toBe('mock');
      expect(await canConnect(cluster.brokers[0]!)).toBe(true);
    } finally {
      await cluster.stop();
    }
  }, 30_000);
});
