/**
 * The local adapter against real databases, the same suite on PGlite and on the Postgres server, one
 * database per kind for the whole file (a fresh PGlite costs seconds). Several buses over several
 * `Database` handles stand for several processes.
 *
 * - publishing: streams stay in order on Kafka's partition for their key, concurrent publishers get
 *   unique, gap-free offsets, refused messages publish nothing, other processes are woken without
 *   polling, lag and health tell the truth;
 * - groups: a stopped consumer's successor resumes from the committed offset, members share partitions
 *   and take over a leaver's at once, a stalled member loses its partitions at session expiry and its late
 *   commit is refused, `latest` starts at the end;
 * - dead letters: exactly maxAttempts tries with backoff, then `<topic>.dlq` with the DLQ headers while the
 *   partition goes on; an invalid value goes there untried; no payload or error text in headers or logs.
 */
import { Client } from 'pg';

import { createTestDatabase, TEST_DATABASE_KINDS } from '@trustmesh/platform-database/testing';
import { createEnvelope, EVENT_HEADERS, type EventEnvelope } from '@trustmesh/platform-events';
// Specs use the testing library; the workspace's boundary rule does not yet tell specs from sources.
 
import { uniqueName, waitUntil } from '@trustmesh/platform-testing';

import { DLQ_HEADERS, deadLetterTopic, type BusRecord } from '../event-bus.port';
import { partitionForKey } from '../partitioner';
import { BusError } from '../bus.error';
import { createLocalEventBus } from './local-event-bus.factory';
import type { ListeningDatabase } from './wake-ups';
import {
  appendRaw,
  busDatabase,
  eventKey,
  freezable,
  interleavedEvents,
  latch,
  range,
  recorder,
  storedMessages,
  streamIds,
  TEST_PARTITIONS,
  TEST_TUNING,
  testBus,
  type BusDatabase,
} from './test/local-bus.harness';

function event(streamId: string, streamVersion: number, data: unknown = { n: streamVersion }): EventEnvelope {
  return createEnvelope({ eventType: 'CounterIncremented', data }, { streamId, streamVersion, producer: 'bus-spec@0' });
}

describe.each(TEST_DATABASE_KINDS)('the local bus on %s', (kind) => {
  let db: BusDatabase;

  beforeAll(async () => {
    db = await busDatabase(kind, 'local-bus');
  }, 60_000);

  afterAll(async () => {
    await db?.testDb.dispose();
  }, 60_000);

  describe('publishing', () => {
    it('keeps every stream in order, on the partition Kafka would choose for it', async () => {
      const { bus } = await testBus(db);
      const topic = uniqueName('order.counters.v1');
      const streams = streamIds('ws', 24);
      const events = interleavedEvents(streams, 20);
      const received = recorder();
      try {
        const subscription = await bus.subscribe({ groupId: uniqueName('order'), topics: [topic], handler: received.handler });
        for (let from = 0; from < events.length; from += 40) await bus.publish(topic, events.slice(from, from + 40));
        await waitUntil(() => received.records.length === events.length, { timeoutMs: 20_000, what: 'every event' });

        for (const stream of streams) expect(received.versionsByStream().get(stream)).toEqual(range(1, 20));
        for (const record of received.records) {
          expect(record.partition).toBe(partitionForKey(record.envelope.streamId, TEST_PARTITIONS));
          expect(record.key).toBe(record.envelope.streamId);
          expect(record.topic).toBe(topic);
          expect(record.attempt).toBe(1);
        }
        // Offsets count up from 0 per partition, in delivery order.
        for (const partition of range(0, TEST_PARTITIONS - 1)) {
          const offsets = received.records.filter((record) => record.partition === partition).map(({ offset }) => Number(offset));
          expect(offsets).toEqual(range(0, offsets.length - 1));
        }
        // The stored message carries the envelope as published, and the routing headers.
        const [stored] = await storedMessages(db.database, topic);
        expect(JSON.parse(stored!.value)).toEqual(events.find((envelope) => eventKey(envelope) === eventKey(JSON.parse(stored!.value) as EventEnvelope)));
        expect(stored!.headers[EVENT_HEADERS.eventType]).toBe('CounterIncremented');

        await waitUntil(async () => (await subscription.lag()).every(({ lag }) => lag === 0), { what: 'every offset committed' });
      } finally {
        await bus.close();
      }
    }, 60_000);

    it('gives concurrent publishers in several processes unique, gap-free offsets on one partition', async () => {
      const handles = [db.database, await db.testDb.open(), await db.testDb.open()];
      const buses = await Promise.all(handles.map((database) => testBus(db, { database })));
      const topic = uniqueName('concurrent.counters.v1');
      try {
        // 3 publishers × 15 calls at once, all on one stream's partition, plus batches that span partitions.
        await Promise.all(
          buses.flatMap(({ bus }, publisher) => [
            ...range(1, 15).map((call) => bus.publish(topic, [event('hot', publisher * 100 + call)])),
            bus.publish(topic, interleavedEvents(streamIds(`cold-${publisher}`, 8), 2)),
          ]),
        );
        const stored = await storedMessages(db.database, topic);
        expect(stored).toHaveLength(3 * 15 + 3 * 16);
        for (const partition of range(0, TEST_PARTITIONS - 1)) {
          const offsets = stored.filter((message) => message.partition === partition).map(({ offset }) => Number(offset));
          expect(offsets).toEqual(range(0, offsets.length - 1));
        }
        const hot = stored.filter(({ key }) => key === 'hot');
        expect(hot).toHaveLength(45);
        expect(new Set(hot.map(({ partition }) => partition))).toEqual(new Set([partitionForKey('hot', TEST_PARTITIONS)]));
        // Within one publish call, each stream keeps its order.
        for (const publisher of [0, 1, 2]) {
          for (const stream of streamIds(`cold-${publisher}`, 8)) {
            expect(stored.filter(({ key }) => key === stream).map(({ value }) => (JSON.parse(value) as EventEnvelope).streamVersion)).toEqual([1, 2]);
          }
        }
      } finally {
        await Promise.all(buses.map(({ bus }) => bus.close()));
      }
    }, 60_000);

    it('lets two processes on one database publish and consume the same topic, woken without polling', async () => {
      const other = await db.testDb.open();
      const first = await testBus(db, { consumer: { pollIntervalMs: 30_000 } });
      const second = await testBus(db, { database: other, consumer: { pollIntervalMs: 30_000 } });
      const topic = uniqueName('shared.counters.v1');
      const atFirst = recorder();
      const atSecond = recorder();
      try {
        expect(first.bus.wakeUpKind).toBe(kind === 'postgres' ? 'postgres-listen' : 'in-process');
        await first.bus.subscribe({ groupId: uniqueName('first'), topics: [topic], handler: atFirst.handler, start: 'latest' });
        await second.bus.subscribe({ groupId: uniqueName('second'), topics: [topic], handler: atSecond.handler, start: 'latest' });
        const started = Date.now();
        await first.bus.publish(topic, interleavedEvents(streamIds('from-first', 5), 3));
        await second.bus.publish(topic, interleavedEvents(streamIds('from-second', 5), 3));
        await waitUntil(() => atFirst.records.length === 30 && atSecond.records.length === 30, { timeoutMs: 10_000, what: 'both groups to get all 30' });
        // Far below the 30 s poll interval: the commits woke the consumers.
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(new Set(atFirst.keys())).toEqual(new Set(atSecond.keys()));
        for (const stream of [...streamIds('from-first', 5), ...streamIds('from-second', 5)]) {
          expect(atSecond.versionsByStream().get(stream)).toEqual([1, 2, 3]);
          expect(atFirst.versionsByStream().get(stream)).toEqual([1, 2, 3]);
        }
      } finally {
        await Promise.all([first.bus.close(), second.bus.close()]);
        await other.close();
      }
    }, 60_000);

    it('refuses invalid envelopes, oversized messages and bad topic names, publishing nothing of the call', async () => {
      const { bus } = await testBus(db, { maxMessageBytes: 2_048 });
      const topic = uniqueName('refused.counters.v1');
      try {
        const broken = { ...event('s', 2), eventType: 'not pascal case' };
        await expect(bus.publish(topic, [event('s', 1), broken])).rejects.toMatchObject({ name: 'BusError', code: 'ENVELOPE_INVALID' });
        const tooLarge = event('s', 2, { blob: 'x'.repeat(4_096) });
        const refusal = bus.publish(topic, [event('s', 1), tooLarge]);
        await expect(refusal).rejects.toBeInstanceOf(BusError);
        await expect(refusal).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE', message: expect.stringContaining('over the bus limit of 2048') });
        expect(await storedMessages(db.database, topic)).toEqual([]);
        await expect(bus.publish('no spaces allowed', [event('s', 1)])).rejects.toMatchObject({ code: 'TOPIC_INVALID' });
        await expect(bus.subscribe({ groupId: '', topics: [topic], handler: async () => undefined })).rejects.toMatchObject({ code: 'SUBSCRIPTION_INVALID' });
        await bus.publish(topic, [event('s', 1, { fits: true })]);
        expect(await storedMessages(db.database, topic)).toHaveLength(1);
      } finally {
        await bus.close();
      }
      await expect(bus.publish(topic, [event('s', 2)])).rejects.toMatchObject({ code: 'BUS_CLOSED' });
    }, 60_000);

    it('reports lag per partition and its health', async () => {
      const { bus } = await testBus(db);
      const topic = uniqueName('lag.counters.v1');
      const streams = streamIds('lag', 12);
      const gate = { open: false };
      const received = recorder(() => waitUntil(() => gate.open, { timeoutMs: 30_000 }));
      try {
        expect(await bus.health()).toEqual({ adapter: 'local', ready: true });
        await bus.publish(topic, interleavedEvents(streams, 5));
        const subscription = await bus.subscribe({ groupId: uniqueName('lag'), topics: [topic], handler: received.handler });
        const perPartition = (partition: number) => streams.filter((stream) => partitionForKey(stream, TEST_PARTITIONS) === partition).length * 5;
        const before = await subscription.lag();
        expect(before).toEqual(
          range(0, TEST_PARTITIONS - 1).map((partition) => ({
            topic,
            partition,
            committedOffset: '0',
            endOffset: String(perPartition(partition)),
            lag: perPartition(partition),
          })),
        );
        gate.open = true;
        await waitUntil(async () => (await subscription.lag()).every(({ lag }) => lag === 0), { timeoutMs: 20_000, what: 'the group to catch up' });
        expect((await subscription.lag()).map(({ committedOffset, endOffset }) => committedOffset === endOffset)).toEqual(range(0, TEST_PARTITIONS - 1).map(() => true));
        expect(received.records).toHaveLength(60);
      } finally {
        gate.open = true;
        await bus.close();
      }
      expect(await bus.health()).toEqual({ adapter: 'local', ready: false, reason: 'BUS_CLOSED' });

      // A database the bus cannot reach, and one without the bus tables.
      const handle = await db.testDb.open();
      const { bus: orphan } = await testBus(db, { database: handle });
      await handle.close();
      expect(await orphan.health()).toEqual({ adapter: 'local', ready: false, reason: 'DATABASE_UNREACHABLE' });
      await orphan.close();
    }, 60_000);
  });

  describe('consumer groups', () => {
    it('resumes a stopped consumer from the committed offset in a new member, without loss', async () => {
      const topic = uniqueName('resume.counters.v1');
      const groupId = uniqueName('resume');
      const streams = streamIds('resume', 8);
      const { bus: publisher } = await testBus(db);
      const first = await testBus(db);
      const second = await testBus(db, { database: await db.testDb.open() });
      const before = recorder(() => new Promise((resolve) => setTimeout(resolve, 2)));
      const after = recorder();
      try {
        await publisher.publish(topic, interleavedEvents(streams, 25));
        const stopping = await first.bus.subscribe({ groupId, topics: [topic], handler: before.handler });
        await waitUntil(() => before.records.length >= 60, { what: '60 events at the first member' });
        await stopping.stop();
        const handled = before.records.length;
        expect(handled).toBeLessThan(200);
        // A graceful stop commits the message in hand: the group is behind by exactly what was not handled.
        expect((await stopping.lag()).reduce((sum, { lag }) => sum + lag, 0)).toBe(200 - handled);

        const resumed = await second.bus.subscribe({ groupId, topics: [topic], handler: after.handler });
        await waitUntil(() => after.records.length === 200 - handled, { timeoutMs: 20_000, what: 'the rest at the new member' });
        const keys = [...before.keys(), ...after.keys()];
        expect(new Set(keys).size).toBe(200);
        for (const stream of streams) {
          expect([...(before.versionsByStream().get(stream) ?? []), ...(after.versionsByStream().get(stream) ?? [])]).toEqual(range(1, 25));
        }
        await waitUntil(async () => (await resumed.lag()).every(({ lag }) => lag === 0), { what: 'every offset committed' });
      } finally {
        await Promise.all([publisher.close(), first.bus.close(), second.bus.close()]);
      }
    }, 60_000);

    it('shares the partitions between members and gives a leaver\'s partitions to the others at once', async () => {
      const topic = uniqueName('shared-group.counters.v1');
      const groupId = uniqueName('sharing');
      const streams = streamIds('share', 16);
      // A long session: a takeover within it can only come from the leaver releasing its leases.
      const consumer = { sessionTimeoutMs: 10_000 };
      const one = await testBus(db, { consumer });
      const two = await testBus(db, { database: await db.testDb.open(), consumer });
      const atOne = recorder();
      const atTwo = recorder();
      try {
        const first = await one.bus.subscribe({ groupId, topics: [topic], handler: atOne.handler });
        const second = await two.bus.subscribe({ groupId, topics: [topic], handler: atTwo.handler });
        const held = () => [first, second].map((member) => member.assignedPartitions().flatMap(({ partitions }) => partitions));
        await waitUntil(() => held().every((partitions) => partitions.length === TEST_PARTITIONS / 2), { what: 'two partitions each' });
        expect([...held()[0]!, ...held()[1]!].sort()).toEqual(range(0, TEST_PARTITIONS - 1));

        await one.bus.publish(topic, interleavedEvents(streams, 5));
        await waitUntil(() => atOne.records.length + atTwo.records.length === 80, { what: 'the first 80 events' });
        expect(atOne.records.length).toBeGreaterThan(0);
        expect(atTwo.records.length).toBeGreaterThan(0);
        // Each stream went to one member only: its partition's.
        for (const stream of streams) expect(Number(atOne.versionsByStream().has(stream)) + Number(atTwo.versionsByStream().has(stream))).toBe(1);

        const leftAt = Date.now();
        await second.stop();
        await waitUntil(() => held()[0]!.length === TEST_PARTITIONS, { what: 'the remaining member to take every partition' });
        expect(Date.now() - leftAt).toBeLessThan(consumer.sessionTimeoutMs / 2);

        await two.bus.publish(topic, range(6, 10).flatMap((version) => streams.map((stream) => event(stream, version))));
        await waitUntil(() => atOne.records.length + atTwo.records.length === 160, { what: 'all 160 events' });
        for (const stream of streams) {
          expect([...(atOne.versionsByStream().get(stream) ?? []), ...(atTwo.versionsByStream().get(stream) ?? [])].sort((a, b) => a - b)).toEqual(range(1, 10));
          expect(atOne.versionsByStream().get(stream)!.slice(-5)).toEqual(range(6, 10));
        }
      } finally {
        await Promise.all([one.bus.close(), two.bus.close()]);
      }
    }, 60_000);

    it('gives a stalled member\'s partition to another at session expiry, and refuses its late commit', async () => {
      const topic = uniqueName('stall.counters.v1');
      const groupId = uniqueName('stall');
      const stalling = freezable(await db.testDb.open());
      const slow = await testBus(db, { database: stalling.database, partitions: 1 });
      const healthy = await testBus(db, { partitions: 1 });
      const inHand = latch();
      const letGo = latch();
      let frozenAt = 0;
      const atSlow = recorder(async ({ envelope }) => {
        if (envelope.streamVersion !== 1) return;
        stalling.freeze(); // no more heartbeats, renewals or commits from this member
        frozenAt = Date.now();
        inHand.open();
        await letGo.promise;
      });
      const atHealthy = recorder();
      try {
        await slow.bus.subscribe({ groupId, topics: [topic], handler: atSlow.handler });
        await healthy.bus.publish(topic, range(1, 5).map((version) => event('stalled', version)));
        await inHand.promise;
        const other = await healthy.bus.subscribe({ groupId, topics: [topic], handler: atHealthy.handler });
        await waitUntil(() => atHealthy.records.length === 5, { timeoutMs: 10_000, what: 'the healthy member to handle the stream' });
        // Never two holders: the partition moved only once the stalled member's lease expired.
        expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(TEST_TUNING.sessionTimeoutMs / 2);
        expect(atHealthy.versionsByStream().get('stalled')).toEqual(range(1, 5));

        stalling.thaw();
        letGo.open();
        await waitUntil(() => slow.logger.lines.some(({ message }) => message.includes('lease lost')), { what: 'the stalled member to notice' });
        await waitUntil(async () => (await other.lag()).every(({ lag }) => lag === 0), { what: 'the healthy member to commit' });
        expect((await other.lag())[0]).toMatchObject({ committedOffset: '5', endOffset: '5' });

        // The group goes on with both members and nothing is handled twice from here.
        await healthy.bus.publish(topic, [event('stalled', 6)]);
        await waitUntil(() => [...atSlow.keys(), ...atHealthy.keys()].includes('stalled:6'), { what: 'the next event' });
        expect(atSlow.keys()).toEqual(atSlow.keys().includes('stalled:6') ? ['stalled:1', 'stalled:6'] : ['stalled:1']);
        expect([...atSlow.keys(), ...atHealthy.keys()].filter((key) => key === 'stalled:6')).toHaveLength(1);
      } finally {
        stalling.thaw();
        letGo.open();
        await Promise.all([slow.bus.close(), healthy.bus.close()]);
      }
    }, 60_000);

    it('keeps a message in hand until its commit is in, so a crash redelivers no more than the message in hand', async () => {
      const topic = uniqueName('in-hand.counters.v1');
      const stalling = freezable(await db.testDb.open());
      const { bus } = await testBus(db, { database: stalling.database });
      const { bus: publisher } = await testBus(db);
      const started: string[] = [];
      const received = recorder(async ({ envelope }) => {
        started.push(eventKey(envelope));
        if (started.length > 1) return;
        // Time for the other partitions' workers to read their batches and queue for the one slot; then the
        // commit of this message is held up. Another handler starting now would make two messages that a
        // crash would deliver again.
        await new Promise((resolve) => setTimeout(resolve, 200));
        stalling.freeze();
      });
      const streams = streamIds('in-hand', 8);
      try {
        await publisher.publish(topic, interleavedEvents(streams, 2));
        const subscribing = bus.subscribe({ groupId: uniqueName('in-hand'), topics: [topic], handler: received.handler });
        await waitUntil(() => received.records.length >= 1, { what: 'the first message handled' });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(started).toHaveLength(1);
        stalling.thaw();
        await subscribing;
        await waitUntil(() => received.records.length === 16, { what: 'every message, once the commit went through' });
        expect(new Set(received.keys()).size).toBe(16);
        for (const stream of streams) expect(received.versionsByStream().get(stream)).toEqual([1, 2]);
      } finally {
        stalling.thaw();
        await Promise.all([bus.close(), publisher.close()]);
        await stalling.database.close();
      }
    }, 60_000);

    it('starts a new group at the end with start: latest', async () => {
      const topic = uniqueName('latest.counters.v1');
      const { bus } = await testBus(db);
      const received = recorder();
      try {
        await bus.publish(topic, interleavedEvents(streamIds('old', 6), 2));
        const subscription = await bus.subscribe({ groupId: uniqueName('latest'), topics: [topic], handler: received.handler, start: 'latest' });
        await bus.publish(topic, [event('old-0', 3), event('new', 1)]);
        await waitUntil(() => received.records.length === 2, { what: 'the two new events' });
        await waitUntil(async () => (await subscription.lag()).every(({ lag }) => lag === 0), { what: 'every offset committed' });
        expect(received.keys().sort()).toEqual(['new:1', 'old-0:3']);
      } finally {
        await bus.close();
      }
    }, 60_000);
  });

  describe('dead letters', () => {
    const SECRET = `SECRET-${uniqueName('payload')}`;

    it('gives a poison message exactly maxAttempts tries, dead-letters it, and moves on', async () => {
      const { bus, logger } = await testBus(db, { maxAttempts: 3, retryBackoffMs: 40 });
      const topic = uniqueName('poison.counters.v1');
      const tries = new Map<string, Array<{ attempt: number; at: number; offset: string }>>();
      const received = recorder(async (record: BusRecord) => {
        const key = eventKey(record.envelope);
        tries.set(key, [...(tries.get(key) ?? []), { attempt: record.attempt, at: Date.now(), offset: record.offset }]);
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
        await waitUntil(async () => (await subscription.lag()).every(({ lag }) => lag === 0), { what: 'every offset committed' });

        expect(tries.get('poison:3')!.map(({ attempt }) => attempt)).toEqual([1, 2, 3]);
        const [one, two, three] = tries.get('poison:3')!;
        expect(two!.at - one!.at).toBeGreaterThanOrEqual(35);
        expect(three!.at - two!.at).toBeGreaterThanOrEqual(75);
        expect(received.versionsByStream().get('poison')).toEqual([1, 2, 4, 5, 6]);
        expect(received.versionsByStream().get('coded')).toEqual([1, 3, 4]);
        expect(received.records.find(({ envelope }) => eventKey(envelope) === 'flaky:1')?.attempt).toBe(3);

        const stored = await storedMessages(db.database, topic);
        const letters = await storedMessages(db.database, deadLetterTopic(topic));
        expect(letters).toHaveLength(2);
        const poison = letters.find(({ key }) => key === 'poison')!;
        const original = stored.find(({ value }) => eventKey(JSON.parse(value) as EventEnvelope) === 'poison:3')!;
        expect(poison.value).toBe(original.value);
        expect(poison.partition).toBe(partitionForKey('poison', TEST_PARTITIONS));
        expect(poison.headers).toEqual({
          ...original.headers,
          [DLQ_HEADERS.originTopic]: topic,
          [DLQ_HEADERS.originPartition]: String(original.partition),
          [DLQ_HEADERS.originOffset]: original.offset,
          [DLQ_HEADERS.attempts]: '3',
          [DLQ_HEADERS.errorCode]: 'HANDLER_FAILED',
        });
        expect(tries.get('poison:3')![0]!.offset).toBe(original.offset);
        expect(letters.find(({ key }) => key === 'coded')!.headers[DLQ_HEADERS.errorCode]).toBe('UPCAST_FROM_THE_FUTURE');
        // Neither the payload nor the error's text reached a header or a log line.
        expect(JSON.stringify(letters.map(({ headers }) => headers))).not.toContain(SECRET);
        expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
        expect(logger.lines.filter(({ message }) => message.includes('dead-lettered')).map(({ fields }) => fields['code'])).toEqual(
          expect.arrayContaining(['HANDLER_FAILED', 'UPCAST_FROM_THE_FUTURE']),
        );

        // The DLQ is a topic like any other: it can be consumed to inspect or replay.
        const replay = recorder();
        await bus.subscribe({ groupId: uniqueName('replay'), topics: [deadLetterTopic(topic)], handler: replay.handler });
        await waitUntil(() => replay.records.length === 2, { what: 'the two dead letters' });
        expect(replay.keys().sort()).toEqual(['coded:2', 'poison:3']);
      } finally {
        await bus.close();
      }
    }, 60_000);

    it('dead-letters a value that is not an envelope without trying it, and goes on with the partition', async () => {
      const { bus } = await testBus(db);
      const topic = uniqueName('invalid.counters.v1');
      const received = recorder();
      try {
        const subscription = await bus.subscribe({ groupId: uniqueName('invalid'), topics: [topic], handler: received.handler });
        await bus.publish(topic, [event('mixed', 1)]);
        await appendRaw(db.database, topic, [
          { key: 'mixed', value: '{"not":"an envelope"}', headers: { origin: 'legacy-tool' } },
          { key: 'mixed', value: 'not even json', headers: {} },
        ]);
        await bus.publish(topic, [event('mixed', 2)]);
        await waitUntil(() => received.records.length === 2, { what: 'the two valid events' });
        await waitUntil(async () => (await subscription.lag()).every(({ lag }) => lag === 0), { what: 'every offset committed' });
        expect(received.keys()).toEqual(['mixed:1', 'mixed:2']);
        expect(received.records.map(({ offset }) => offset)).toEqual(['0', '3']);

        const letters = await storedMessages(db.database, deadLetterTopic(topic));
        expect(letters.map(({ value }) => value)).toEqual(['{"not":"an envelope"}', 'not even json']);
        expect(letters.map(({ headers }) => [headers[DLQ_HEADERS.errorCode], headers[DLQ_HEADERS.attempts], headers[DLQ_HEADERS.originOffset]])).toEqual([
          ['ENVELOPE_INVALID', '0', '1'],
          ['ENVELOPE_INVALID', '0', '2'],
        ]);
        expect(letters[0]!.headers['origin']).toBe('legacy-tool');
      } finally {
        await bus.close();
      }
    }, 60_000);
  });
});

describe('the local bus on postgres: wake-ups and schema', () => {
  let db: BusDatabase;

  beforeAll(async () => {
    db = await busDatabase('postgres', 'local-bus-wake-ups');
  }, 60_000);

  afterAll(async () => {
    await db?.testDb.dispose();
  }, 60_000);

  it('reopens a LISTEN connection that dropped, and catches up without waiting for the poll interval', async () => {
    const { bus, logger } = await testBus(db, { consumer: { pollIntervalMs: 30_000 } });
    const topic = uniqueName('relisten.counters.v1');
    const received = recorder();
    try {
      await bus.subscribe({ groupId: uniqueName('relisten'), topics: [topic], handler: received.handler });
      const listeners = () =>
        db.database.withConnection((sql) =>
          sql.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'"),
        );
      const [listener] = await listeners();
      await db.database.withConnection((sql) => sql.query('SELECT pg_terminate_backend($1)', [listener!.pid]));
      // Published while nobody listens: only the reconnection's resync can bring it in time.
      await bus.publish(topic, [event('relisten', 1)]);
      await waitUntil(() => received.records.length === 1, { timeoutMs: 10_000, what: 'the event published while the listener was down' });
      expect(logger.lines.map(({ message }) => message)).toEqual(
        expect.arrayContaining(['local bus: the LISTEN connection dropped; polling until it is back', 'local bus: listening for wake-ups again']),
      );
      await bus.publish(topic, [event('relisten', 2)]);
      await waitUntil(() => received.records.length === 2, { timeoutMs: 3_000, what: 'an event published after the reconnection' });
    } finally {
      await bus.close();
    }
    // close() ends the listener's own connection; the Database it was given stays open.
    await waitUntil(async () => (await db.database.withConnection((sql) => sql.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'"))).length === 0, {
      what: 'the LISTEN connection to close',
    });
  }, 60_000);

  it("uses the database's own listen when it offers one", async () => {
    const client = new Client({ connectionString: (db.testDb.config as { url: string }).url });
    await client.connect();
    const listening: ListeningDatabase = {
      ...db.database,
      withConnection: (work) => db.database.withConnection(work),
      listen: async (channel, onNotification) => {
        const forward = ({ channel: heard, payload }: { channel: string; payload?: string }) => heard === channel && payload && onNotification(payload);
        client.on('notification', forward);
        await client.query(`LISTEN ${channel}`);
        return async () => {
          client.off('notification', forward);
          await client.query(`UNLISTEN ${channel}`);
        };
      },
    };
    const { bus } = await testBus(db, { database: listening, consumer: { pollIntervalMs: 30_000 } });
    const topic = uniqueName('own-listen.counters.v1');
    const received = recorder();
    try {
      expect(bus.wakeUpKind).toBe('database-listen');
      await bus.subscribe({ groupId: uniqueName('own-listen'), topics: [topic], handler: received.handler, start: 'latest' });
      await bus.publish(topic, [event('own', 1)]);
      await waitUntil(() => received.records.length === 1, { timeoutMs: 5_000, what: 'the event, woken by the database' });
    } finally {
      await bus.close();
      await client.end();
    }
  }, 60_000);

  it('refuses to start on a server database without its migrations, and says so', async () => {
    const bare = await createTestDatabase('postgres', 'local-bus-bare');
    try {
      const database = await bare.open();
      const config = { bus: { adapter: 'local' as const, kafka: null, topicPrefix: '', maxAttempts: 3, retryBackoffMs: 20, localPartitions: 4 }, database: bare.config };
      await expect(createLocalEventBus(config, database)).rejects.toMatchObject({ name: 'MigrationError', code: 'MIGRATIONS_PENDING' });
      const unprepared = await createLocalEventBus(config, database, { prepareSchema: false, logger: { log: () => undefined } });
      expect(await unprepared.health()).toEqual({ adapter: 'local', ready: false, reason: 'SCHEMA_MISSING' });
      await expect(unprepared.publish('any.topic.v1', [event('s', 1)])).rejects.toMatchObject({ name: 'BusError', code: 'SCHEMA_MISSING' });
      await unprepared.close();
    } finally {
      await bare.dispose();
    }
  }, 60_000);
});
