/**
 * Failing handlers and unreadable messages: bounded tries with backoff, then `<topic>.dlq` with the
 * port's DLQ headers, while the rest of the partition is still processed; nothing of the payload or
 * of the error's text reaches a header or a log line.
 */
import { Kafka, logLevel, Partitioners } from 'kafkajs';

import { createEnvelope, EVENT_HEADERS, toEventMessage, type EventEnvelope } from '@trustmesh/platform-events';
import { readTopic, uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { DLQ_HEADERS, deadLetterTopic, type BusRecord } from '../event-bus.port';
import { eventKey, interleavedEvents, range, recorder, streamIds, testBus } from './test/kafka-bus.harness';

const cluster = useKafkaCluster();

const SECRET = `SECRET-${uniqueName('payload')}`;

function event(streamId: string, streamVersion: number, data: unknown = { n: streamVersion }): EventEnvelope {
  return createEnvelope({ eventType: 'CounterIncremented', data }, { streamId, streamVersion, producer: 'bus-spec@0' });
}

describe('the Kafka bus with failing handlers', () => {
  it('gives a poison message exactly maxAttempts tries, dead-letters it, and moves on', async () => {
    const { bus, logger } = testBus(cluster.brokers, { maxAttempts: 3, retryBackoffMs: 60, clientLogLevel: 'debug' });
    const topic = uniqueName('poison.counters');
    const tries = new Map<string, Array<{ attempt: number; at: number; partition: number; offset: string }>>();
    const received = recorder(async (record: BusRecord) => {
      const key = eventKey(record.envelope);
      tries.set(key, [...(tries.get(key) ?? []), { attempt: record.attempt, at: Date.now(), partition: record.partition, offset: record.offset }]);
      if (key === 'poison:3') throw new Error(`cannot apply ${JSON.stringify(record.envelope.data)}`);
      if (key === 'coded:2') throw Object.assign(new Error(`future ${SECRET}`), { code: 'UPCAST_FROM_THE_FUTURE' });
      if (key === 'flaky:1' && record.attempt < 3) throw new Error(`flaky ${SECRET}`);
    });
    const events = [
      ...range(1, 6).map((version) => event('poison', version, version === 3 ? { secret: SECRET } : { n: version })),
      ...range(1, 4).map((version) => event('coded', version)),
      ...range(1, 2).map((version) => event('flaky', version)),
      ...interleavedEvents(streamIds('bystander', 6), 4),
    ];
    try {
      const subscription = await bus.subscribe({ groupId: uniqueName('poison'), topics: [topic], handler: received.handler });
      await bus.publish(topic, events);
      await waitUntil(() => received.records.length === events.length - 2, { timeoutMs: 20_000, what: 'every event but the two poison ones' });
      await waitUntil(async () => (await subscription.lag()).every(({ lag }) => lag === 0), { timeoutMs: 10_000, what: 'every offset committed' });

      // Exactly maxAttempts tries, each after a doubling backoff, and the stream goes on after it.
      expect(tries.get('poison:3')!.map(({ attempt }) => attempt)).toEqual([1, 2, 3]);
      const [first, second, third] = tries.get('poison:3')!;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(55);
      expect(third!.at - second!.at).toBeGreaterThanOrEqual(115);
      expect(received.versionsByStream().get('poison')).toEqual([1, 2, 4, 5, 6]);
      expect(received.versionsByStream().get('coded')).toEqual([1, 3, 4]);
      // A handler that recovers within its tries is not dead-lettered; the record says which try it was.
      expect(received.records.find(({ envelope }) => eventKey(envelope) === 'flaky:1')?.attempt).toBe(3);

      const letters = await readTopic(cluster.brokers, deadLetterTopic(topic), { minMessages: 2 });
      expect(letters).toHaveLength(2);
      const poison = letters.find(({ key }) => key === 'poison')!;
      const original = events.find((envelope) => eventKey(envelope) === 'poison:3')!;
      expect(JSON.parse(poison.value!)).toEqual(original);
      expect(poison.headers).toEqual({
        ...toEventMessage(original).headers,
        [DLQ_HEADERS.originTopic]: topic,
        [DLQ_HEADERS.originPartition]: String(first!.partition),
        [DLQ_HEADERS.originOffset]: first!.offset,
        [DLQ_HEADERS.attempts]: '3',
        [DLQ_HEADERS.errorCode]: 'HANDLER_FAILED',
      });
      const coded = letters.find(({ key }) => key === 'coded')!;
      expect(coded.headers).toMatchObject({ [DLQ_HEADERS.attempts]: '3', [DLQ_HEADERS.errorCode]: 'UPCAST_FROM_THE_FUTURE' });

      // The error's text and the payload stay out of headers and logs; the code and position are logged.
      expect(JSON.stringify(letters.map(({ headers }) => headers))).not.toContain(SECRET);
      expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
      expect(logger.lines).toContainEqual({
        level: 'warn',
        message: 'kafka consumer: message dead-lettered',
        fields: expect.objectContaining({ topic, offset: first!.offset, attempts: 3, code: 'HANDLER_FAILED' }),
      });
    } finally {
      await bus.close();
    }
  }, 120_000);

  it('lets a stop cut a retry backoff short, without committing the failed message', async () => {
    const topic = uniqueName('backoff.counters');
    const groupId = uniqueName('backoff');
    const first = testBus(cluster.brokers, { maxAttempts: 5, retryBackoffMs: 20_000 });
    const second = testBus(cluster.brokers);
    const failures: number[] = [];
    const successor = recorder();
    try {
      await first.bus.publish(topic, [event('stuck', 1), event('stuck', 2)]);
      const subscription = await first.bus.subscribe({
        groupId,
        topics: [topic],
        handler: async ({ attempt }) => {
          failures.push(attempt);
          throw new Error('not yet');
        },
      });
      await waitUntil(() => failures.length === 1, { what: 'the first failed try' });
      const stopping = Date.now();
      await subscription.stop();
      expect(Date.now() - stopping).toBeLessThan(5_000); // not the 20 s backoff
      expect(failures).toEqual([1]);
      expect((await subscription.lag()).reduce((sum, { lag }) => sum + lag, 0)).toBe(2);

      // The next member starts the message afresh: it was neither committed nor dead-lettered.
      await second.bus.subscribe({ groupId, topics: [topic], handler: successor.handler });
      await waitUntil(() => successor.records.length === 2, { timeoutMs: 15_000, what: 'the successor to get both events' });
      expect(successor.records.map(({ attempt, envelope }) => [eventKey(envelope), attempt])).toEqual([
        ['stuck:1', 1],
        ['stuck:2', 1],
      ]);
    } finally {
      await Promise.all([first.bus.close(), second.bus.close()]);
    }
  }, 120_000);

  it('dead-letters a value that is not an envelope at once, as ENVELOPE_INVALID', async () => {
    const { bus } = testBus(cluster.brokers);
    const topic = uniqueName('garbage.counters');
    const received = recorder();
    const raw = new Kafka({ clientId: 'bus-spec-raw', brokers: cluster.brokers, logLevel: logLevel.NOTHING }).producer({
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await raw.connect();
    try {
      await bus.subscribe({ groupId: uniqueName('garbage'), topics: [topic], handler: received.handler });
      const valid = toEventMessage(event('mixed', 1));
      await raw.send({
        topic,
        acks: -1,
        messages: [
          { key: 'mixed', value: 'not json at all' },
          { key: 'mixed', value: JSON.stringify({ eventType: 'CounterIncremented', data: SECRET }), headers: { [EVENT_HEADERS.eventType]: 'CounterIncremented' } },
          { key: 'mixed', value: Buffer.from([0xff, 0xfe]) },
          { key: valid.key, value: valid.value, headers: valid.headers },
        ],
      });
      await waitUntil(() => received.records.length === 1, { timeoutMs: 15_000, what: 'the valid event after the garbage' });
      expect(received.keys()).toEqual(['mixed:1']);

      const letters = await readTopic(cluster.brokers, deadLetterTopic(topic), { minMessages: 3 });
      expect(letters).toHaveLength(3);
      expect(letters.map(({ headers }) => headers[DLQ_HEADERS.originOffset])).toEqual(['0', '1', '2']);
      for (const letter of letters) {
        expect(letter.key).toBe('mixed');
        expect(letter.headers).toMatchObject({
          [DLQ_HEADERS.originTopic]: topic,
          [DLQ_HEADERS.originPartition]: String(received.records[0]!.partition),
          [DLQ_HEADERS.attempts]: '0',
          [DLQ_HEADERS.errorCode]: 'ENVELOPE_INVALID',
        });
      }
      expect(letters[0]!.value).toBe('not json at all');
      expect(letters[1]!.headers[EVENT_HEADERS.eventType]).toBe('CounterIncremented');
    } finally {
      await raw.disconnect();
      await bus.close();
    }
  }, 120_000);
});
