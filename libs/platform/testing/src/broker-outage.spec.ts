/**
 * The broker gate against real parts: a plain TCP server for what a socket sees, and librdkafka's
 * mock cluster for what a kafkajs client sees through the gate.
 */
import { createServer, type Server, type Socket } from 'node:net';

import { Kafka, logLevel } from 'kafkajs';

import { createBrokerGate, type BrokerGate } from './broker-outage';
import { readTopic } from './kafka-topic.reader';
import { uniqueName } from './unique-name';
import { useKafkaCluster } from './kafka-cluster.fixture';

const cluster = useKafkaCluster({ brokers: 3 });

/** What happened to a socket the gate opened: connected, then the error code it ended with, if any. */
function watch(socket: Socket): Promise<{ connected: boolean; errorCode: string | undefined }> {
  let connected = false;
  let errorCode: string | undefined;
  socket.once('connect', () => {
    connected = true;
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    errorCode = error.code;
  });
  return new Promise((resolve) => socket.once('close', () => resolve({ connected, errorCode })));
}

/** A kafkajs client whose every broker connection goes through `gate`, quick to give up while it is down. */
function gatedKafka(gate: BrokerGate): Kafka {
  return new Kafka({
    clientId: 'broker-gate-spec',
    brokers: cluster.brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    retry: { retries: 1, initialRetryTime: 50 },
    socketFactory: gate.socketFactory,
  });
}

describe('the broker gate', () => {
  let server: Server;
  let port: number;
  const accepted: Socket[] = [];

  beforeAll(async () => {
    server = createServer((socket) => {
      accepted.push(socket);
      socket.on('error', () => undefined); // the peer's reset is the point
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('resets open connections when down, refuses new ones until up, then lets them through', async () => {
    const gate = createBrokerGate();
    const open = (onConnect: () => void = () => undefined) => gate.socketFactory({ host: '127.0.0.1', port, ssl: undefined as never, onConnect });

    let connects = 0;
    const first = open(() => (connects += 1));
    const firstEnd = watch(first);
    await new Promise((resolve) => first.once('connect', resolve));
    expect(connects).toBe(1);
    expect(gate.stats).toEqual({ opened: 1, reset: 0, refused: 0, open: 1, writesRefused: 0 });

    expect(gate.down()).toBe(1);
    expect(gate.isDown).toBe(true);
    await expect(firstEnd).resolves.toEqual({ connected: true, errorCode: 'ECONNRESET' });

    const refused = open(() => (connects += 1));
    await expect(watch(refused)).resolves.toEqual({ connected: false, errorCode: 'ECONNREFUSED' });
    expect(connects).toBe(1);

    gate.up();
    const again = open();
    const againEnd = watch(again);
    await new Promise((resolve) => again.once('connect', resolve));
    again.end();
    await expect(againEnd).resolves.toEqual({ connected: true, errorCode: undefined });
    expect(gate.stats).toEqual({ opened: 2, reset: 1, refused: 1, open: 0, writesRefused: 0 });
  });

  it('cuts a kafkajs client off every broker it reached, not only the bootstrap one, and lets it back', async () => {
    const gate = createBrokerGate();
    const kafka = gatedKafka(gate);
    const admin = kafka.admin();
    await admin.connect();
    try {
      // Connections past the bootstrap one (to the brokers the metadata names) go through the gate too. An
      // admin request goes to any one broker, so two of them may well both land on the bootstrap one: the
      // offsets of a topic (created on first use, several partitions) are asked of each partition's leader.
      expect((await admin.describeCluster()).brokers).toHaveLength(3);
      const topic = uniqueName('gate.brokers');
      await admin.fetchTopicMetadata({ topics: [topic] });
      await admin.fetchTopicOffsets(topic);
      expect(gate.stats.opened).toBeGreaterThanOrEqual(2);

      expect(gate.down()).toBeGreaterThanOrEqual(2);
      expect(gate.stats.open).toBe(0);
      // The request in flight on a reset connection is lost; the next one finds the brokers refusing.
      await expect(admin.describeCluster()).rejects.toMatchObject({ name: 'KafkaJSConnectionError', code: 'ECONNRESET' });
      await expect(admin.describeCluster()).rejects.toMatchObject({
        name: 'KafkaJSNumberOfRetriesExceeded',
        cause: { name: 'KafkaJSConnectionError', code: 'ECONNREFUSED' },
      });
      expect(gate.stats.refused).toBeGreaterThanOrEqual(1);

      gate.up();
      expect((await admin.describeCluster()).brokers).toHaveLength(3);
      expect(gate.stats.open).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.disconnect();
    }
  }, 30_000);

  it('refuses writes while it serves reads: a Produce resets its connection, other requests of the client go through', async () => {
    const gate = createBrokerGate();
    const kafka = gatedKafka(gate);
    const topic = uniqueName('gate.writes');
    const producer = kafka.producer({ maxInFlightRequests: 1 });
    const admin = kafka.admin();
    await Promise.all([producer.connect(), admin.connect()]);
    try {
      await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: 'before' }] });
      gate.refuseWrites();
      expect(gate.refusingWrites).toBe(true);
      await expect(producer.send({ topic, acks: -1, messages: [{ key: 'k', value: 'refused' }] })).rejects.toMatchObject({ name: 'KafkaJSNumberOfRetriesExceeded' });
      expect(gate.stats.writesRefused).toBeGreaterThanOrEqual(2);
      // Reads are not writes: the same client still reads the topic's offsets.
      const held = (await admin.fetchTopicOffsets(topic)).reduce((sum, { high, low }) => sum + Number(high) - Number(low), 0);
      expect(held).toBe(1);

      gate.acceptWrites();
      await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: 'after' }] });
      expect((await readTopic(cluster.brokers, topic, { minMessages: 2 })).map(({ value }) => value)).toEqual(['before', 'after']);
    } finally {
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    }
  }, 30_000);
});
