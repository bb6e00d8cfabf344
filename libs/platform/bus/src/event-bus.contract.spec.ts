/**
 * The event bus port's contract (`event-bus.port.ts`), one suite run against every adapter: `kafka` on a
 * real Kafka-protocol cluster (librdkafka's mock, or KAFKA_BROKERS), and `local` on PGlite and on the
 * Postgres server. One fixture per adapter for the whole file; several buses on it stand for several
 * processes of a service. Nothing is faked: what a scenario needs below the port (the raw log, a foreign
 * producer, a consumer killed outright) the fixture does with the adapter's own means (`test/bus-fixtures.ts`).
 *
 * - publishing: per-stream order across many interleaved streams, on the partition the shared partitioner
 *   picks, under the topic prefix; concurrent publishers; publish resolves once durable; where a new group
 *   starts; what is refused; lag and health;
 * - consumer groups: a stopped member's successor resumes from the committed offset, a killed member's
 *   from its checkpoint (only the message in hand again), members share partitions and a leaver's move at once;
 * - failing handlers: exactly maxAttempts tries with backoff, then `<topic>.dlq` with the DLQ headers while
 *   the partition goes on; a backoff holds only its own partition, the member's others go on meanwhile; a stop cuts a backoff short without committing; a value that is not an envelope
 *   is dead-lettered untried; no payload or error text in headers or logs;
 * - transiently failing handlers (the world is bad, not the message): no try is used up however often it
 *   fails, nothing is dead-lettered, the partition waits on the message and says so, and goes on in order
 *   once it succeeds, while the member's other partitions go on meanwhile; a stop cuts the wait short
 *   without committing.
 * Adapter-specific behaviour (idempotent producer, SIGTERM, wake-ups, leases) stays in the adapters' specs.
 */
import { toEventMessage, type EventEnvelope } from '@trustmesh/platform-events';
import { uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { BusError } from './bus.error';
import { DLQ_HEADERS, deadLetterTopic, TransientHandlerError, type BusRecord } from './event-bus.port';
import { partitionForKey } from './partitioner';
import { event, eventKey, expectSeamlessHandover, interleavedEvents, latch, range, recorder, streamIds } from './test/bus-events';
import { BUS_FIXTURES, openBusFixture, type BusFixture } from './test/bus-fixtures';

const cluster = useKafkaCluster();

const total = (lags: ReadonlyArray<{ lag: number }>) => lags.reduce((sum, { lag }) => sum + lag, 0);
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(BUS_FIXTURES)('the %s bus', (kind) => {
  let fixture: BusFixture;

  beforeAll(async () => {
    fixture = await openBusFixture(kind, cluster);
  }, 60_000);

  afterEach(async () => {
    await fixture?.closeAll();
  }, 60_000);

  afterAll(async () => {
    await fixture?.dispose();
  }, 60_000);

  describe('publishing', () => {
    it('delivers every stream in order, many streams interleaved, on the partition its key hashes to, under the topic prefix', async () => {
      const prefix = `${uniqueName('env')}.`;
      const { bus } = await fixture.openBus({ topicPrefix: prefix });
      const topic = 'ordering.counters.v1';
      const streams = streamIds('counter', 24);
      const events = interleavedEvents(streams, 20);
      const received = recorder();
      const subscription = await bus.subscribe({ groupId: uniqueName('ordering'), topics: [topic], handler: received.handler });
      // Several publish calls, as a service would make them; each keeps its order per key.
      for (let from = 0; from < events.length; from += 96) await bus.publish(topic, events.slice(from, from + 96));
      await waitUntil(() => received.records.length >= events.length, { timeoutMs: 30_000, what: 'every event' });

      expect(received.records).toHaveLength(events.length);
      for (const stream of streams) expect(received.versionsByStream().get(stream)).toEqual(range(1, 20));
      // The log holds the prefixed name; handlers see the service's.
      const partitions = await fixture.partitionCount(`${prefix}${topic}`);
      expect(await fixture.count(`${prefix}${topic}`)).toBe(events.length);
      expect(await fixture.count(topic)).toBe(0);
      const byId = new Map(events.map((envelope) => [envelope.eventId, envelope]));
      for (const record of received.records) {
        expect(record.topic).toBe(topic);
        expect(record.key).toBe(record.envelope.streamId);
        expect(record.partition).toBe(partitionForKey(record.key, partitions));
        expect(record.envelope).toEqual(byId.get(record.envelope.eventId));
        expect(record.headers).toEqual(toEventMessage(record.envelope).headers);
        expect(record.attempt).toBe(1);
      }
      expect(new Set(received.records.map(({ partition }) => partition)).size).toBeGreaterThan(1);
      // Offsets count up from 0 per partition, in delivery order.
      for (const partition of range(0, partitions - 1)) {
        const offsets = received.records.filter((record) => record.partition === partition).map(({ offset }) => Number(offset));
        expect(offsets).toEqual(range(0, offsets.length - 1));
      }

      await waitUntil(async () => total(await subscription.lag()) === 0, { timeoutMs: 10_000, what: 'every offset committed' });
      expect(new Set((await subscription.lag()).map((entry) => entry.topic))).toEqual(new Set([topic]));
    }, 120_000);

    it('gives concurrent publishers on one partition unique, gap-free offsets, each call keeping its order per stream', async () => {
      const buses = await Promise.all([1, 2, 3].map(() => fixture.openBus()));
      const topic = uniqueName('concurrent.counters.v1');
      // 3 publishers × 15 calls at once, all on one stream's partition, plus batches that span partitions.
      await Promise.all(
        buses.flatMap(({ bus }, publisher) => [
          ...range(1, 15).map((call) => bus.publish(topic, [event('hot', publisher * 100 + call)])),
          bus.publish(topic, interleavedEvents(streamIds(`cold-${publisher}`, 8), 2)),
        ]),
      );
      const stored = await fixture.read(topic, 3 * 15 + 3 * 16);
      expect(stored).toHaveLength(3 * 15 + 3 * 16);
      for (const partition of range(0, (await fixture.partitionCount(topic)) - 1)) {
        const offsets = stored.filter((message) => message.partition === partition).map(({ offset }) => Number(offset));
        expect(offsets).toEqual(range(0, offsets.length - 1));
      }
      const hot = stored.filter(({ key }) => key === 'hot');
      expect(hot).toHaveLength(45);
      expect(new Set(hot.map(({ partition }) => partition)).size).toBe(1);
      for (const publisher of [0, 1, 2]) {
        for (const stream of streamIds(`cold-${publisher}`, 8)) {
          expect(stored.filter(({ key }) => key === stream).map(({ value }) => (JSON.parse(value!) as EventEnvelope).streamVersion)).toEqual([1, 2]);
        }
      }
    }, 60_000);

    it('resolves publish once the messages are durable: a group that joins afterwards, elsewhere, reads every one', async () => {
      const publisher = await fixture.openBus();
      const reader = await fixture.openBus();
      const topic = uniqueName('durable.counters.v1');
      const events = interleavedEvents(streamIds('durable', 10), 4);
      await publisher.bus.publish(topic, events.slice(0, 25));
      await publisher.bus.publish(topic, events.slice(25));
      // The publishing process goes away right after publish resolved.
      await publisher.bus.close();

      const received = recorder();
      await reader.bus.subscribe({ groupId: uniqueName('durable'), topics: [topic], handler: received.handler });
      await waitUntil(() => received.records.length >= events.length, { timeoutMs: 20_000, what: 'every published event' });
      await settle();
      expect(received.keys().sort()).toEqual(events.map(eventKey).sort());
    }, 60_000);

    it('names the log every record comes from: one log per topic as stored, another under another prefix', async () => {
      const topic = uniqueName('logs.counters.v1');
      const logsOf = async (topicPrefix: string) => {
        const { bus } = await fixture.openBus({ topicPrefix });
        await bus.publish(topic, interleavedEvents(streamIds('logs', 6), 2));
        const received = recorder();
        const subscription = await bus.subscribe({ groupId: uniqueName('logs'), topics: [topic], handler: received.handler });
        await waitUntil(() => received.records.length >= 12, { timeoutMs: 30_000, what: 'every published event' });
        await subscription.stop();
        return new Set(received.records.map((record) => record.log));
      };
      const plain = await logsOf('');
      const prefixed = await logsOf(`${uniqueName('elsewhere')}.`);
      // Every partition's offsets count in the topic's one log; the same service topic under another
      // prefix is another log (its offsets start again), and so would a recreated topic or another cluster.
      expect(plain.size).toBe(1);
      expect(prefixed.size).toBe(1);
      expect([...plain][0]).toMatch(new RegExp(`^${kind.split(' ')[0]}:.*${topic.replace(/\./g, '\\.')}`));
      expect([...prefixed][0]).not.toBe([...plain][0]);
    }, 90_000);

    it('starts a new group where `start` says, also on a topic that does not exist yet', async () => {
      const subscriber = await fixture.openBus();
      const publisher = await fixture.openBus();
      const topic = uniqueName('fresh.counters.v1');
      const earliest = recorder();
      const latest = recorder();
      const lateLatest = recorder();
      // Both subscribe first: neither the topic nor the groups exist yet.
      await subscriber.bus.subscribe({ groupId: uniqueName('fresh-earliest'), topics: [topic], handler: earliest.handler });
      await subscriber.bus.subscribe({ groupId: uniqueName('fresh-latest'), topics: [topic], handler: latest.handler, start: 'latest' });
      const first = interleavedEvents(streamIds('first', 8), 3);
      await publisher.bus.publish(topic, first);
      await waitUntil(() => earliest.records.length === first.length && latest.records.length === first.length, {
        timeoutMs: 20_000,
        what: 'both groups to receive every event',
      });
      expect(latest.keys().sort()).toEqual(earliest.keys().sort());

      // A group that starts at the end of a topic that has messages gets only what comes after it joined.
      await subscriber.bus.subscribe({ groupId: uniqueName('late-latest'), topics: [topic], handler: lateLatest.handler, start: 'latest' });
      await publisher.bus.publish(topic, [event('first-0', 4), event('second', 1)]);
      await waitUntil(() => lateLatest.records.length >= 2 && earliest.records.length >= first.length + 2, { timeoutMs: 20_000, what: 'the two new events' });
      await settle();
      expect(lateLatest.keys().sort()).toEqual(['first-0:4', 'second:1']);
    }, 120_000);

    it('refuses what consumers could not read or the log could not hold, and publishes nothing of it', async () => {
      await expect(fixture.openBus({ maxAttempts: 0, retryBackoffMs: -1 })).rejects.toMatchObject({
        name: 'BusError',
        code: 'OPTIONS_INVALID',
        message: expect.stringMatching(/maxAttempts must be .*; retryBackoffMs must be /),
      });
      const { bus } = await fixture.openBus();
      const topic = uniqueName('refusals.counters.v1');
      const broken = { ...event('s', 2), streamVersion: 0 };
      const refusal = bus.publish(topic, [event('s', 1), broken]);
      await expect(refusal).rejects.toBeInstanceOf(BusError);
      await expect(refusal).rejects.toMatchObject({ code: 'ENVELOPE_INVALID', message: expect.stringContaining('ENVELOPE_FIELD_INVALID (streamVersion)') });
      await expect(bus.publish('not a topic!', [event('s', 1)])).rejects.toMatchObject({ code: 'TOPIC_INVALID' });
      // A topic whose dead-letter sibling could not exist is refused before anything is consumed.
      await expect(bus.subscribe({ groupId: 'g', topics: ['x'.repeat(247)], handler: async () => undefined })).rejects.toMatchObject({ code: 'TOPIC_INVALID' });
      await expect(bus.subscribe({ groupId: '', topics: [topic], handler: async () => undefined })).rejects.toMatchObject({ code: 'SUBSCRIPTION_INVALID' });
      await expect(bus.subscribe({ groupId: 'g', topics: [topic], handler: async () => undefined, maxAttempts: 0 })).rejects.toMatchObject({ code: 'SUBSCRIPTION_INVALID' });
      await bus.publish(topic, []);
      expect(await fixture.read(topic, 0)).toEqual([]);

      await bus.close();
      await expect(bus.publish(topic, [event('s', 1)])).rejects.toMatchObject({ name: 'BusError', code: 'BUS_CLOSED' });
      await expect(bus.subscribe({ groupId: 'g', topics: [topic], handler: async () => undefined })).rejects.toMatchObject({ code: 'BUS_CLOSED' });
    }, 60_000);

    it('reports the lag per partition: what is published and not yet consumed', async () => {
      const { bus } = await fixture.openBus();
      const topic = uniqueName('lag.counters.v1');
      const streams = streamIds('lag', 12);
      const gate = latch();
      const received = recorder(() => gate.promise);
      try {
        await bus.publish(topic, interleavedEvents(streams, 5));
        const subscription = await bus.subscribe({ groupId: uniqueName('lag'), topics: [topic], handler: received.handler });
        // The process's consumer-lag metric reads the running subscriptions through the bus.
        expect(bus.subscriptions()).toEqual([subscription]);
        const partitions = await fixture.partitionCount(topic);
        const perPartition = (partition: number) => streams.filter((stream) => partitionForKey(stream, partitions) === partition).length * 5;
        // Nothing committed yet (the first message is held in the handler): the whole log is behind.
        expect(await subscription.lag()).toEqual(
          range(0, partitions - 1).map((partition) => ({ topic, partition, committedOffset: '0', endOffset: String(perPartition(partition)), lag: perPartition(partition) })),
        );

        gate.open();
        await waitUntil(async () => total(await subscription.lag()) === 0, { timeoutMs: 20_000, what: 'the group to catch up' });
        const caughtUp = await subscription.lag();
        expect(caughtUp.every((entry) => entry.committedOffset === entry.endOffset)).toBe(true);
        expect(received.records).toHaveLength(60);

        await subscription.stop();
        expect(bus.subscriptions()).toEqual([]);
        await bus.publish(topic, interleavedEvents(streamIds('late', 5), 1));
        const behind = await subscription.lag();
        expect(total(behind)).toBe(5);
        for (const entry of behind) expect(entry.lag).toBe(Number(entry.endOffset) - Number(entry.committedOffset));
      } finally {
        gate.open();
      }
    }, 60_000);

    it('reports its health: ready while its log answers, with a stable reason otherwise', async () => {
      const { bus } = await fixture.openBus();
      expect(await bus.health()).toEqual({ adapter: fixture.adapter, ready: true });
      await bus.close();
      expect(await bus.health()).toEqual({ adapter: fixture.adapter, ready: false, reason: 'BUS_CLOSED' });

      const { bus: stranded, reason } = await fixture.unreachableBus();
      expect(await stranded.health()).toEqual({ adapter: fixture.adapter, ready: false, reason });
    }, 60_000);
  });

  describe('consumer groups', () => {
    it('keep deployments under different prefixes apart: one group name in both, each member gets all of its own records and nothing of the other', async () => {
      const groupId = uniqueName('shared-name');
      const topic = 'deployments.counters.v1';
      const deployments = await Promise.all(
        ['blue', 'green'].map(async (name) => {
          const { bus } = await fixture.openBus({ topicPrefix: `${uniqueName(name)}.` });
          return { bus, streams: streamIds(name, 8), received: recorder() };
        }),
      );
      const subscriptions = [];
      for (const { bus, received } of deployments) subscriptions.push(await bus.subscribe({ groupId, topics: [topic], handler: received.handler }));
      for (const { bus, streams } of deployments) await bus.publish(topic, interleavedEvents(streams, 5));
      for (const { received, streams } of deployments) {
        await waitUntil(() => received.records.length >= streams.length * 5, { timeoutMs: 30_000, what: 'every event of the deployment' });
      }
      await settle(); // room for a record of the other deployment to show up
      for (const { received, streams } of deployments) {
        expect(received.records).toHaveLength(streams.length * 5);
        for (const stream of streams) expect(received.versionsByStream().get(stream)).toEqual(range(1, 5));
        expect(new Set(received.records.map((record) => record.topic))).toEqual(new Set([topic]));
      }
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    }, 120_000);

    it('resume after a stop where the stopped member left off: the message in hand finishes, nothing is lost or repeated', async () => {
      const topic = uniqueName('resume.counters.v1');
      const groupId = uniqueName('resume');
      const streams = streamIds('resume', 5);
      const first = await fixture.openBus();
      const second = await fixture.openBus();
      const gate = latch();
      let inHand: string | undefined;
      const before = recorder(async (record) => {
        if (before.records.length === 14) {
          inHand = eventKey(record.envelope);
          await gate.promise;
        }
      });
      const after = recorder();
      await first.bus.publish(topic, interleavedEvents(streams, 8));
      const subscription = await first.bus.subscribe({ groupId, topics: [topic], handler: before.handler });
      await waitUntil(() => inHand !== undefined, { timeoutMs: 20_000, what: 'the 15th message in hand' });

      let stopped = false;
      const stopping = subscription.stop().then(() => (stopped = true));
      await settle();
      expect(stopped).toBe(false); // it waits for the handler
      gate.open();
      await stopping;
      expect(before.keys()).toHaveLength(15);
      expect(before.keys()).toContain(inHand);
      // The stop committed the message in hand: the group is behind by exactly what was not handled.
      expect(total(await subscription.lag())).toBe(40 - 15);

      await second.bus.subscribe({ groupId, topics: [topic], handler: after.handler });
      await waitUntil(() => after.records.length >= 40 - 15, { timeoutMs: 20_000, what: 'the rest of the streams' });
      await settle(); // room for a duplicate to show up
      expectSeamlessHandover(before.keys(), after.keys(), streams, 8);
    }, 120_000);

    it('resume after a member is killed outright from its checkpoint: only the message that was in hand is delivered again', async () => {
      const topic = uniqueName('killed.counters.v1');
      const groupId = uniqueName('killed');
      const streams = streamIds('victim', 6);
      const successor = await fixture.openBus();
      const after = recorder();
      const victim = await fixture.startDoomedConsumer({ topic, groupId, hangAt: 'victim-3:6' });
      await successor.bus.publish(topic, interleavedEvents(streams, 10));
      await waitUntil(() => victim.hanging() !== undefined || victim.failure() !== '', { timeoutMs: 30_000, what: 'the victim to hang on victim-3:6' });
      expect(victim.failure()).toBe('');
      await victim.kill();
      const finished = victim.handled();
      expect(finished.length).toBeGreaterThan(0);
      expect(finished).not.toContain('victim-3:6');

      await successor.bus.subscribe({ groupId, topics: [topic], handler: after.handler });
      await waitUntil(() => finished.length + after.records.length >= 60, { timeoutMs: fixture.sessionTimeoutMs * 5, what: 'the successor to catch up' });
      await settle();
      expect(after.keys()).toContain('victim-3:6');
      expect(after.records).toHaveLength(60 - finished.length);
      expectSeamlessHandover(finished, after.keys(), streams, 10);
    }, 120_000);

    it("share the partitions between members, and hand a leaver's to the others at once", async () => {
      const topic = uniqueName('shared.counters.v1');
      const groupId = uniqueName('shared');
      const { sessionTimeoutMs, withinMs } = fixture.handover;
      const one = await fixture.openBus({ sessionTimeoutMs });
      const two = await fixture.openBus({ sessionTimeoutMs });
      const byOne = recorder();
      const byTwo = recorder();
      const held = (...members: Array<{ assignedPartitions(): Array<{ partitions: number[] }> }>) =>
        members.flatMap((member) => member.assignedPartitions().flatMap(({ partitions }) => partitions)).sort((a, b) => a - b);

      const first = await one.bus.subscribe({ groupId, topics: [topic], handler: byOne.handler });
      const partitions = range(0, (await fixture.partitionCount(topic)) - 1);
      await waitUntil(() => JSON.stringify(held(first)) === JSON.stringify(partitions), { timeoutMs: 30_000, what: 'the first member to hold every partition' });
      const second = await two.bus.subscribe({ groupId, topics: [topic], handler: byTwo.handler });
      await waitUntil(() => JSON.stringify(held(first, second)) === JSON.stringify(partitions) && held(second).length > 0 && held(first).length > 0, {
        timeoutMs: 30_000,
        what: 'both members to hold a disjoint share of the partitions',
      });
      const ofOne = new Set(held(first));
      const ofTwo = new Set(held(second));

      const streams = streamIds('share', 16);
      await one.bus.publish(topic, interleavedEvents(streams, 5));
      await waitUntil(() => byOne.records.length + byTwo.records.length >= 80, { timeoutMs: 20_000, what: 'every event' });
      expect(byOne.records.every(({ partition }) => ofOne.has(partition))).toBe(true);
      expect(byTwo.records.every(({ partition }) => ofTwo.has(partition))).toBe(true);
      expect(byOne.records.length).toBeGreaterThan(0);
      expect(byTwo.records.length).toBeGreaterThan(0);
      // Each stream went to one member only: its partition's.
      for (const stream of streams) expect(Number(byOne.versionsByStream().has(stream)) + Number(byTwo.versionsByStream().has(stream))).toBe(1);

      await second.stop();
      const leftAt = Date.now();
      await waitUntil(() => JSON.stringify(held(first)) === JSON.stringify(partitions), { timeoutMs: sessionTimeoutMs * 3, what: 'the remaining member to hold every partition' });
      expect(Date.now() - leftAt).toBeLessThan(withinMs);

      await two.bus.publish(topic, range(6, 10).flatMap((version) => streams.map((stream) => event(stream, version))));
      await waitUntil(() => byOne.records.length + byTwo.records.length >= 160, { timeoutMs: 20_000, what: 'the remaining member to take everything' });
      for (const stream of streams) {
        expect([...(byOne.versionsByStream().get(stream) ?? []), ...(byTwo.versionsByStream().get(stream) ?? [])].sort((a, b) => a - b)).toEqual(range(1, 10));
        expect(byOne.versionsByStream().get(stream)!.slice(-5)).toEqual(range(6, 10));
      }
    }, 120_000);
  });

  describe('failing handlers', () => {
    const SECRET = `SECRET-${uniqueName('payload')}`;

    it('give a poison message exactly maxAttempts tries, dead-letter it, and go on with its partition', async () => {
      const { bus, logger } = await fixture.openBus({ maxAttempts: 3, retryBackoffMs: 60, debugLogs: true });
      const topic = uniqueName('poison.counters.v1');
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
      const subscription = await bus.subscribe({ groupId: uniqueName('poison'), topics: [topic], handler: received.handler });
      await bus.publish(topic, events);
      await waitUntil(() => received.records.length === events.length - 2, { timeoutMs: 30_000, what: 'every event but the two poison ones' });
      await waitUntil(async () => total(await subscription.lag()) === 0, { timeoutMs: 10_000, what: 'every offset committed' });

      // Exactly maxAttempts tries, each after a doubling backoff, and the stream (its partition) goes on after it.
      expect(tries.get('poison:3')!.map(({ attempt }) => attempt)).toEqual([1, 2, 3]);
      const [first, second, third] = tries.get('poison:3')!;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(55);
      expect(third!.at - second!.at).toBeGreaterThanOrEqual(115);
      expect(received.versionsByStream().get('poison')).toEqual([1, 2, 4, 5, 6]);
      expect(received.versionsByStream().get('coded')).toEqual([1, 3, 4]);
      // A handler that recovers within its tries is not dead-lettered; the record says which try it was.
      expect(received.records.find(({ envelope }) => eventKey(envelope) === 'flaky:1')?.attempt).toBe(3);

      const letters = await fixture.read(deadLetterTopic(topic), 2);
      expect(letters).toHaveLength(2);
      const poison = letters.find(({ key }) => key === 'poison')!;
      const original = events.find((envelope) => eventKey(envelope) === 'poison:3')!;
      expect(JSON.parse(poison.value!)).toEqual(original);
      expect(poison.partition).toBe(partitionForKey('poison', await fixture.partitionCount(deadLetterTopic(topic))));
      expect(poison.headers).toEqual({
        ...toEventMessage(original).headers,
        [DLQ_HEADERS.originTopic]: topic,
        [DLQ_HEADERS.originPartition]: String(first!.partition),
        [DLQ_HEADERS.originOffset]: first!.offset,
        [DLQ_HEADERS.attempts]: '3',
        [DLQ_HEADERS.errorCode]: 'HANDLER_FAILED',
      });
      expect(letters.find(({ key }) => key === 'coded')!.headers).toMatchObject({ [DLQ_HEADERS.attempts]: '3', [DLQ_HEADERS.errorCode]: 'UPCAST_FROM_THE_FUTURE' });

      // The error's text and the payload stay out of headers and logs; the code and the position are logged.
      expect(JSON.stringify(letters.map(({ headers }) => headers))).not.toContain(SECRET);
      expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
      expect(logger.lines).toContainEqual({
        level: 'warn',
        message: expect.stringContaining('message dead-lettered'),
        fields: expect.objectContaining({ topic, partition: first!.partition, offset: first!.offset, attempts: 3, code: 'HANDLER_FAILED' }),
      });

      // The DLQ is a topic like any other: it can be consumed to inspect or replay.
      const replay = recorder();
      await bus.subscribe({ groupId: uniqueName('replay'), topics: [deadLetterTopic(topic)], handler: replay.handler });
      await waitUntil(() => replay.records.length === 2, { timeoutMs: 20_000, what: 'the two dead letters' });
      expect(replay.keys().sort()).toEqual(['coded:2', 'poison:3']);
    }, 120_000);

    it('let a stop cut a retry backoff short, without committing the failed message', async () => {
      const topic = uniqueName('backoff.counters.v1');
      const groupId = uniqueName('backoff');
      const first = await fixture.openBus({ maxAttempts: 5, retryBackoffMs: 20_000 });
      const second = await fixture.openBus();
      const failures: number[] = [];
      const successor = recorder();
      await first.bus.publish(topic, [event('stuck', 1), event('stuck', 2)]);
      const subscription = await first.bus.subscribe({
        groupId,
        topics: [topic],
        handler: async ({ attempt }) => {
          failures.push(attempt);
          throw new Error('not yet');
        },
      });
      await waitUntil(() => failures.length === 1, { timeoutMs: 20_000, what: 'the first failed try' });
      const stopping = Date.now();
      await subscription.stop();
      expect(Date.now() - stopping).toBeLessThan(5_000); // not the 20 s backoff
      expect(failures).toEqual([1]);
      expect(total(await subscription.lag())).toBe(2);

      // The next member starts the message afresh: it was neither committed nor dead-lettered.
      await second.bus.subscribe({ groupId, topics: [topic], handler: successor.handler });
      await waitUntil(() => successor.records.length === 2, { timeoutMs: 20_000, what: 'the successor to get both events' });
      expect(successor.records.map(({ attempt, envelope }) => [eventKey(envelope), attempt])).toEqual([
        ['stuck:1', 1],
        ['stuck:2', 1],
      ]);
      expect(await fixture.read(deadLetterTopic(topic), 0)).toEqual([]);
    }, 120_000);

    it('wait on a message that fails transiently more often than maxAttempts, using up no try: no dead letter, applied once, its partition in order after it', async () => {
      const { bus, logger } = await fixture.openBus({ maxAttempts: 3, retryBackoffMs: 10, maxRetryBackoffMs: 200 });
      const topic = uniqueName('transient.counters.v1');
      const TRANSIENT_FAILURES = 7; // more than twice maxAttempts
      let databaseDown = true;
      const tries = new Map<string, number[]>();
      const received = recorder(async (record: BusRecord) => {
        const key = eventKey(record.envelope);
        tries.set(key, [...(tries.get(key) ?? []), record.attempt]);
        const transientSoFar = () => (tries.get(key) ?? []).length;
        if (key === 'stuck:2' && databaseDown) {
          // Both ways of marking a failure transient: the port's class, and any error with `transient: true`.
          if (transientSoFar() % 2 === 0) throw Object.assign(new Error(`down ${SECRET}`), { transient: true, code: 'BUS_SPEC_DATABASE_DOWN' });
          throw new TransientHandlerError(`down ${SECRET}`, { code: 'BUS_SPEC_DATABASE_DOWN', cause: new Error(SECRET) });
        }
        // Transient failures first, then ordinary ones: only the ordinary ones count, so it succeeds on its third try.
        if (key === 'mixed:1' && transientSoFar() <= 4) throw new TransientHandlerError('busy', { code: 'BUS_SPEC_BUSY' });
        if (key === 'mixed:1' && record.attempt < 3) throw new Error(`flaky ${SECRET}`);
      });
      const events = [...range(1, 4).map((version) => event('stuck', version)), event('mixed', 1), ...interleavedEvents(streamIds('bystander', 8), 3)];
      const subscription = await bus.subscribe({ groupId: uniqueName('transient'), topics: [topic], handler: received.handler });
      await bus.publish(topic, events);
      const partitions = await fixture.partitionCount(topic);
      const stuckPartition = partitionForKey('stuck', partitions);
      const stuckOffset = String(events.filter(({ streamId }) => partitionForKey(streamId, partitions) === stuckPartition).findIndex((envelope) => eventKey(envelope) === 'stuck:2'));

      await waitUntil(() => (tries.get('stuck:2') ?? []).length > TRANSIENT_FAILURES, { timeoutMs: 30_000, what: `more than ${TRANSIENT_FAILURES} transient failures of stuck:2` });
      // While the world is bad, the partition says why it waits and falls behind; nothing is dead-lettered.
      expect(subscription.retrying()).toContainEqual({
        topic,
        partition: stuckPartition,
        offset: stuckOffset,
        transientFailures: expect.any(Number),
        since: expect.any(String),
        code: 'BUS_SPEC_DATABASE_DOWN',
      });
      expect(subscription.retrying().find(({ partition }) => partition === stuckPartition)!.transientFailures).toBeGreaterThan(TRANSIENT_FAILURES);
      expect((await subscription.lag()).find(({ partition }) => partition === stuckPartition)!.committedOffset).toBe(stuckOffset);
      expect(tries.get('stuck:2')!.every((attempt) => attempt === 1)).toBe(true);
      expect(received.versionsByStream().get('stuck')).toEqual([1]);

      databaseDown = false;
      await waitUntil(() => received.records.length === events.length, { timeoutMs: 30_000, what: 'every event once the world is back' });
      await waitUntil(async () => total(await subscription.lag()) === 0, { timeoutMs: 10_000, what: 'every offset committed' });
      await settle(); // room for a duplicate to show up
      expect(received.records).toHaveLength(events.length);
      expect(subscription.retrying()).toEqual([]);
      expect(await fixture.count(deadLetterTopic(topic))).toBe(0);

      // Applied once, on its first counted try, and the partition went on in order behind it.
      expect(received.records.filter(({ envelope }) => eventKey(envelope) === 'stuck:2').map(({ attempt }) => attempt)).toEqual([1]);
      expect(received.versionsByStream().get('stuck')).toEqual([1, 2, 3, 4]);
      const stuckOffsets = received.records.filter(({ partition }) => partition === stuckPartition).map(({ offset }) => Number(offset));
      expect(stuckOffsets).toEqual(range(0, stuckOffsets.length - 1));
      for (const stream of streamIds('bystander', 8)) expect(received.versionsByStream().get(stream)).toEqual([1, 2, 3]);
      expect(received.records.find(({ envelope }) => eventKey(envelope) === 'mixed:1')?.attempt).toBe(3);
      expect(tries.get('mixed:1')).toEqual([1, 1, 1, 1, 1, 2, 3]);

      // Said at warn with the failure's code, once per interval rather than once per failure; never the error's text.
      const transientLines = logger.lines.filter(({ message, fields }) => message.includes('failed transiently') && fields['code'] === 'BUS_SPEC_DATABASE_DOWN');
      expect(transientLines).toHaveLength(1);
      expect(transientLines[0]).toEqual({
        level: 'warn',
        message: expect.any(String),
        fields: expect.objectContaining({ partition: stuckPartition, offset: stuckOffset, transientFailures: 1, code: 'BUS_SPEC_DATABASE_DOWN' }),
      });
      expect(logger.lines).toContainEqual({
        level: 'info',
        message: expect.stringContaining('succeeded after transient failures'),
        fields: expect.objectContaining({ partition: stuckPartition, offset: stuckOffset, transientFailures: tries.get('stuck:2')!.length - 1 }),
      });
      expect(logger.lines.filter(({ message, fields }) => message.endsWith('handler failed') && fields['offset'] === stuckOffset && fields['partition'] === stuckPartition)).toEqual([]);
      expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
    }, 120_000);

    it('let a stop cut a transient wait short, without committing the message it waits on', async () => {
      const topic = uniqueName('transient-stop.counters.v1');
      const groupId = uniqueName('transient-stop');
      // A wait that would outlast the test: only the stop can end it.
      const first = await fixture.openBus({ maxAttempts: 1, retryBackoffMs: 3_600_000, maxRetryBackoffMs: 3_600_000 });
      const second = await fixture.openBus();
      const failures: number[] = [];
      const successor = recorder();
      await first.bus.publish(topic, [event('waiting', 1), event('waiting', 2)]);
      const subscription = await first.bus.subscribe({
        groupId,
        topics: [topic],
        handler: async ({ attempt }) => {
          failures.push(attempt);
          throw new TransientHandlerError('database unreachable', { code: 'BUS_SPEC_DATABASE_DOWN' });
        },
      });
      await waitUntil(() => subscription.retrying().length === 1, { timeoutMs: 20_000, what: 'the partition to wait on its first message' });
      await subscription.stop();
      expect(failures).toEqual([1]);
      expect(subscription.retrying()).toEqual([]);
      expect(total(await subscription.lag())).toBe(2);

      // The next member starts the message afresh: it was neither committed nor dead-lettered.
      await second.bus.subscribe({ groupId, topics: [topic], handler: successor.handler });
      await waitUntil(() => successor.records.length === 2, { timeoutMs: 20_000, what: 'the successor to get both events' });
      expect(successor.records.map(({ attempt, envelope }) => [eventKey(envelope), attempt])).toEqual([
        ['waiting:1', 1],
        ['waiting:2', 1],
      ]);
      expect(await fixture.count(deadLetterTopic(topic))).toBe(0);
    }, 120_000);

    it("hold only the failing message's own partition during a retry backoff: the member's other partitions go on meanwhile", async () => {
      // A backoff that would outlast the test: the other partitions must not wait for it.
      const { bus } = await fixture.openBus({ maxAttempts: 2, retryBackoffMs: 3_600_000, maxRetryBackoffMs: 3_600_000 });
      const topic = uniqueName('backoff-partition.counters.v1');
      const tries: number[] = [];
      const received = recorder(async (record: BusRecord) => {
        if (eventKey(record.envelope) !== 'poison:1') return;
        tries.push(record.attempt);
        throw new Error('not this one');
      });
      const subscription = await bus.subscribe({ groupId: uniqueName('backoff-partition'), topics: [topic], handler: received.handler });
      await bus.publish(topic, [event('poison', 1)]);
      await waitUntil(() => tries.length === 1, { timeoutMs: 20_000, what: 'the first failed try' });
      const partitions = await fixture.partitionCount(topic);
      const poisonPartition = partitionForKey('poison', partitions);
      const others = streamIds('free', 16).filter((stream) => partitionForKey(stream, partitions) !== poisonPartition);

      const freeEvents = interleavedEvents(others, 2);
      await bus.publish(topic, freeEvents);
      await waitUntil(() => received.records.filter(({ envelope }) => envelope.streamId !== 'poison').length === freeEvents.length, {
        timeoutMs: 30_000,
        what: 'the other partitions to go on during the backoff',
      });
      for (const stream of others) expect(received.versionsByStream().get(stream)).toEqual([1, 2]);
      await subscription.stop();
      expect(tries).toEqual([1]);
      expect((await subscription.lag()).find(({ partition }) => partition === poisonPartition)!.lag).toBe(1);
      expect(await fixture.count(deadLetterTopic(topic))).toBe(0);
    }, 120_000);

    it("hold only the failing message's own partition on a transient failure: the member's other partitions go on meanwhile", async () => {
      // partitionsConsumedConcurrently stays at its default (one partition at a time), as services run it.
      const { bus } = await fixture.openBus({ maxAttempts: 1, retryBackoffMs: 10, maxRetryBackoffMs: 100 });
      const topic = uniqueName('transient-partition.counters.v1');
      let databaseDown = true;
      let blockedFailures = 0;
      const received = recorder(async (record: BusRecord) => {
        if (eventKey(record.envelope) === 'blocked:1' && databaseDown) {
          blockedFailures += 1;
          throw new TransientHandlerError('database unreachable', { code: 'BUS_SPEC_DATABASE_DOWN' });
        }
      });
      const subscription = await bus.subscribe({ groupId: uniqueName('transient-partition'), topics: [topic], handler: received.handler });
      await bus.publish(topic, [event('blocked', 1), event('blocked', 2)]);
      const partitions = await fixture.partitionCount(topic);
      const blockedPartition = partitionForKey('blocked', partitions);
      const others = streamIds('free', 16).filter((stream) => partitionForKey(stream, partitions) !== blockedPartition);
      expect(others.length).toBeGreaterThan(0);
      await waitUntil(() => blockedFailures >= 3, { timeoutMs: 20_000, what: 'blocked:1 to fail transiently a few times' });

      // The same member handles every other partition while blocked:1 keeps failing.
      const freeEvents = interleavedEvents(others, 2);
      await bus.publish(topic, freeEvents);
      await waitUntil(() => received.records.length === freeEvents.length, { timeoutMs: 30_000, what: 'the other partitions to go on while one waits' });
      expect(received.versionsByStream().get('blocked')).toBeUndefined();
      expect(subscription.retrying()).toEqual([expect.objectContaining({ topic, partition: blockedPartition, offset: '0', code: 'BUS_SPEC_DATABASE_DOWN' })]);

      databaseDown = false;
      await waitUntil(() => received.records.length === freeEvents.length + 2, { timeoutMs: 30_000, what: 'the blocked partition to go on once the world is back' });
      await waitUntil(async () => total(await subscription.lag()) === 0, { timeoutMs: 10_000, what: 'every offset committed' });
      await settle(); // room for a duplicate to show up
      expect(received.records).toHaveLength(freeEvents.length + 2);
      expect(received.versionsByStream().get('blocked')).toEqual([1, 2]);
      expect(received.records.filter(({ envelope }) => eventKey(envelope) === 'blocked:1').map(({ attempt }) => attempt)).toEqual([1]);
      for (const stream of others) expect(received.versionsByStream().get(stream)).toEqual([1, 2]);
      expect(subscription.retrying()).toEqual([]);
      expect(await fixture.count(deadLetterTopic(topic))).toBe(0);
    }, 120_000);

    it('dead-letter a value that is not an envelope at once, as ENVELOPE_INVALID, and go on with the partition', async () => {
      const { bus } = await fixture.openBus();
      const topic = uniqueName('garbage.counters.v1');
      const received = recorder();
      const garbage = [
        { key: 'mixed', value: 'not json at all' },
        { key: 'mixed', value: JSON.stringify({ eventType: 'CounterIncremented', data: SECRET }), headers: { 'event-type': 'CounterIncremented', origin: 'legacy-tool' } },
        // A log of bytes also gets a value that is not even UTF-8; the local log holds text only.
        ...(fixture.adapter === 'kafka' ? [{ key: 'mixed', value: new Uint8Array([0xff, 0xfe]) }] : []),
      ];
      const subscription = await bus.subscribe({ groupId: uniqueName('garbage'), topics: [topic], handler: received.handler });
      await bus.publish(topic, [event('mixed', 1)]);
      await fixture.appendRaw(topic, garbage);
      await bus.publish(topic, [event('mixed', 2)]);
      await waitUntil(() => received.records.length === 2, { timeoutMs: 20_000, what: 'the two valid events around the garbage' });
      await waitUntil(async () => total(await subscription.lag()) === 0, { timeoutMs: 10_000, what: 'every offset committed' });
      expect(received.keys()).toEqual(['mixed:1', 'mixed:2']);
      expect(received.records.map(({ offset }) => offset)).toEqual(['0', String(garbage.length + 1)]);

      const letters = await fixture.read(deadLetterTopic(topic), garbage.length);
      expect(letters).toHaveLength(garbage.length);
      expect(letters.map(({ headers }) => headers[DLQ_HEADERS.originOffset])).toEqual(range(1, garbage.length).map(String));
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
      expect(letters[1]!.headers).toMatchObject({ 'event-type': 'CounterIncremented', origin: 'legacy-tool' });
    }, 120_000);
  });
});
