/**
 * What only the local adapter does, against real databases: the same suite on PGlite and on the Postgres
 * server, one database per kind for the whole file. Several buses over several `Database` handles stand
 * for several processes. The port's semantics, which the kafka adapter shares, are
 * `../event-bus.contract.spec.ts`'s; here:
 * - the size limit of a message;
 * - wake-ups: processes on one database hear each other's commits without polling (in-process signals on
 *   PGlite, LISTEN/NOTIFY on a server, the database's own `listen` where it has one), and a dropped
 *   LISTEN connection is reopened;
 * - leases: a stalled member loses its partitions at session expiry and its late commit is refused, and a
 *   member keeps one message in hand until its commit is in; a member never restarts a partition with a
 *   lease its revoked worker gave back while the member's round was under way (on the server, where a
 *   round can be held at one statement);
 * - schema: a server database without the bus migrations is refused with a clear code;
 * - a batch handler: each read of a partition at once, committed together, and one by one when it rejects.
 */
import { Client } from 'pg';

import { createTestDatabase, TEST_DATABASE_KINDS } from '@trustmesh/platform-database/testing';
import { toEventMessage } from '@trustmesh/platform-events';
import { uniqueName, waitUntil } from '@trustmesh/platform-testing';

import { BusError } from '../bus.error';
import { deadLetterTopic, DLQ_HEADERS, type BusRecord } from '../event-bus.port';
import { event, eventKey, interleavedEvents, latch, range, recorder, streamIds } from '../test/bus-events';
import { createLocalEventBus } from './local-event-bus.factory';
import type { ListeningDatabase } from './wake-ups';
import { partitionForKey } from '../partitioner';
import { busDatabase, freezable, gated, storedMessages, TEST_PARTITIONS, TEST_TUNING, testBus, type BusDatabase } from './test/local-bus.harness';

describe.each(TEST_DATABASE_KINDS)('the local bus on %s', (kind) => {
  let db: BusDatabase;

  beforeAll(async () => {
    db = await busDatabase(kind, 'local-bus');
  }, 60_000);

  afterAll(async () => {
    await db?.testDb.dispose();
  }, 60_000);

  it('refuses a message over its size limit, publishing nothing of the call', async () => {
    const { bus } = await testBus(db, { maxMessageBytes: 2_048 });
    const topic = uniqueName('too-large.counters.v1');
    try {
      const refusal = bus.publish(topic, [event('s', 1), event('s', 2, { blob: 'x'.repeat(4_096) })]);
      await expect(refusal).rejects.toBeInstanceOf(BusError);
      await expect(refusal).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE', message: expect.stringContaining('over the bus limit of 2048') });
      expect(await storedMessages(db.database, topic)).toEqual([]);
      await bus.publish(topic, [event('s', 1, { fits: true })]);
      expect(await storedMessages(db.database, topic)).toHaveLength(1);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('stores each message exactly as published, whatever characters its value and headers hold', async () => {
    const { bus } = await testBus(db);
    const topic = uniqueName('verbatim.counters.v1');
    const awkward = 'a "quoted", \\back\\slash, {braces}, NULL, tab\tand\nnewline, ünïcödé, 😀, \\"';
    // Several streams, so one publish writes to several partitions with several messages each.
    const envelopes = range(1, 3).flatMap((version) => ['s1', 's2', 's3', 's4'].map((stream) => event(stream, version, { text: `${stream} ${awkward}`, empty: '' })));
    const traced = { ...event('s5', 1, { text: awkward }), traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    try {
      await bus.publish(topic, [...envelopes, traced]);
      const stored = await storedMessages(db.database, topic);
      const byEvent = new Map(stored.map((message) => [(JSON.parse(message.value) as { eventId: string }).eventId, message]));
      for (const envelope of [...envelopes, traced]) {
        const message = byEvent.get(envelope.eventId);
        expect(message?.value).toBe(JSON.stringify(envelope));
        expect(message?.key).toBe(envelope.streamId);
        expect(message?.headers).toEqual(toEventMessage(envelope).headers);
      }
      expect(byEvent.size).toBe(envelopes.length + 1);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('appends a publish larger than one statement carries to one partition in order, gap-free', async () => {
    const { bus } = await testBus(db);
    const topic = uniqueName('bulk.counters.v1');
    const envelopes = range(1, 2_100).map((version) => event('one-stream', version));
    try {
      await bus.publish(topic, envelopes);
      const stored = await storedMessages(db.database, topic);
      expect(stored.map((message) => message.offset)).toEqual(range(0, 2_099).map(String));
      expect(stored.map((message) => (JSON.parse(message.value) as { streamVersion: number }).streamVersion)).toEqual(range(1, 2_100));
    } finally {
      await bus.close();
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

  it('hands a batch handler each read of a partition at once, committed together; when it rejects, the same records go one by one to the handler, with their tries and dead letter', async () => {
    const { bus } = await testBus(db);
    const topic = uniqueName('runs.counters.v1');
    const runs: number[][] = [];
    const oneByOne: number[] = [];
    const letters: BusRecord[] = [];
    const versions = (records: readonly BusRecord[]) => records.map((record) => record.envelope.streamVersion);
    try {
      const dlq = await bus.subscribe({ groupId: uniqueName('dlq'), topics: [deadLetterTopic(topic)], handler: async (record) => void letters.push(record) });
      await bus.publish(topic, range(1, 3).map((version) => event('one-stream', version)));
      const subscription = await bus.subscribe({
        groupId: uniqueName('runs'),
        topics: [topic],
        batchHandler: async (records) => {
          runs.push(versions(records));
          if (records.some((record) => record.envelope.streamVersion === 5)) throw new Error('refused');
        },
        handler: async (record) => {
          oneByOne.push(record.envelope.streamVersion);
          if (record.envelope.streamVersion === 5) throw new Error('refused');
        },
      });
      await waitUntil(() => runs.length === 1, { timeoutMs: 30_000 });
      await bus.publish(topic, range(4, 6).map((version) => event('one-stream', version)));
      await waitUntil(() => letters.length === 1, { timeoutMs: 30_000 });
      await waitUntil(async () => (await subscription.lag()).every((partition) => partition.lag === 0), { timeoutMs: 30_000 });
      await subscription.stop();
      await dlq.stop();

      expect(runs).toEqual([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      expect(oneByOne).toEqual([4, 5, 5, 5, 6]);
      expect(versions(letters)).toEqual([5]);
      expect(letters[0]?.headers[DLQ_HEADERS.attempts]).toBe('3');
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('with a wake-up linger, hands the messages of separate publishes after one wake-up to the batch handler as one run', async () => {
    // Far longer than the three publishes take, however busy the machine: the run is decided by the linger.
    const { bus } = await testBus(db, { consumer: { wakeUpLingerMs: 3_000 } });
    const topic = uniqueName('linger.counters.v1');
    const runs: number[][] = [];
    const oneByOne: number[] = [];
    try {
      const subscription = await bus.subscribe({
        groupId: uniqueName('linger'),
        topics: [topic],
        batchHandler: async (records) => void runs.push(records.map((record) => record.envelope.streamVersion)),
        handler: async (record) => void oneByOne.push(record.envelope.streamVersion),
      });
      // The first message, once handled, leaves the partition idle: what follows arrives by wake-ups.
      await bus.publish(topic, [event('one-stream', 1)]);
      await waitUntil(() => oneByOne.length === 1, { timeoutMs: 30_000 });
      for (const version of range(2, 4)) await bus.publish(topic, [event('one-stream', version)]);
      await waitUntil(async () => (await subscription.lag()).every((partition) => partition.lag === 0), { timeoutMs: 30_000 });
      await subscription.stop();

      expect(oneByOne).toEqual([1]);
      expect(runs).toEqual([[2, 3, 4]]);
    } finally {
      await bus.close();
    }
  }, 60_000);
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

describe('the local bus on postgres: rebalancing rounds', () => {
  let db: BusDatabase;

  beforeAll(async () => {
    db = await busDatabase('postgres', 'local-bus-rounds');
  }, 60_000);

  afterAll(async () => {
    await db?.testDb.dispose();
  }, 60_000);

  it('never restarts a partition with the lease its revoked worker gave back while the round was under way', async () => {
    const topic = uniqueName('rounds.counters.v1');
    const groupId = uniqueName('rounds');
    const streams = range(0, TEST_PARTITIONS - 1).map((partition) => streamIds('round', 64).find((stream) => partitionForKey(stream, TEST_PARTITIONS) === partition)!);
    const handle = gated(await db.testDb.open());
    const acquiring = handle.gate('INSERT INTO bus_partition_leases');
    const renewing = handle.gate('UPDATE bus_partition_leases SET expires_at');
    // Every message in hand at once, so a revoked worker can be kept alive by its handler.
    const first = await testBus(db, { database: handle.database, consumer: { partitionsConsumedConcurrently: TEST_PARTITIONS } });
    const second = await testBus(db);
    const letGo = range(0, TEST_PARTITIONS - 1).map(() => latch());
    const inHand = new Set<number>();
    // Who held the partition's lease as each message was handled (the member id is known once subscribe returns).
    const holders: Array<{ key: string; holder: string | null | undefined }> = [];
    const atFirst = recorder(async ({ envelope, partition }) => {
      const [lease] = await db.database.withConnection((sql) =>
        sql.query<{ member_id: string | null }>('SELECT member_id FROM bus_partition_leases WHERE group_id = $1 AND topic = $2 AND partition = $3', [groupId, topic, partition]),
      );
      holders.push({ key: eventKey(envelope), holder: lease?.member_id });
      if (envelope.streamVersion !== 1) return;
      inHand.add(partition);
      await letGo[partition]!.promise;
    });
    const atSecond = recorder();
    try {
      await first.bus.publish(topic, interleavedEvents(streams, 2));
      const subscription = await first.bus.subscribe({ groupId, topics: [topic], handler: atFirst.handler });
      await waitUntil(() => inHand.size === TEST_PARTITIONS, { what: 'every first message in hand' });

      // A second member joins: the first revokes half its partitions, whose workers wait on their handlers.
      const other = await second.bus.subscribe({ groupId, topics: [topic], handler: atSecond.handler });
      await waitUntil(() => subscription.assignedPartitions()[0]?.partitions.length === TEST_PARTITIONS / 2, { what: 'the first member to revoke half' });
      const kept = subscription.assignedPartitions()[0]!.partitions;
      const [handedOver, revoked] = range(0, TEST_PARTITIONS - 1).filter((partition) => !kept.includes(partition));
      for (const partition of [...kept, handedOver!]) letGo[partition]!.open();
      await waitUntil(() => other.assignedPartitions()[0]?.partitions.includes(handedOver!) ?? false, { what: 'the second member to take the released partition' });

      // The second member leaves: the first member's round holds at taking the partition it left...
      acquiring.close();
      await other.stop();
      await waitUntil(() => acquiring.waiting() > 0, { what: 'the round to take leases' });
      // ...while the revoked worker finishes its message and gives its lease back.
      renewing.close();
      letGo[revoked!]!.open();
      await waitUntil(
        async () =>
          (
            await db.database.withConnection((sql) =>
              sql.query('SELECT 1 FROM bus_partition_leases WHERE group_id = $1 AND topic = $2 AND partition = $3 AND member_id IS NULL', [groupId, topic, revoked]),
            )
          ).length === 1,
        { what: 'the revoked lease to be given back' },
      );
      await new Promise((resolve) => setTimeout(resolve, 200)); // room for the worker to exit after its release
      acquiring.open();
      // The next statement renewing leases waits: a worker started in the round above now runs alone.
      await waitUntil(() => renewing.waiting() > 0, { what: 'the next renewal' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      renewing.open();

      await waitUntil(() => atFirst.keys().filter((key) => key.endsWith(':2')).length + atSecond.keys().filter((key) => key.endsWith(':2')).length >= TEST_PARTITIONS, {
        what: 'every second message',
      });
      expect(holders.filter(({ holder }) => holder !== subscription.memberId)).toEqual([]);
      expect(first.logger.lines.filter(({ message }) => message.includes('lease lost'))).toEqual([]);
      expect(atFirst.keys().filter((key) => key === `${streams[revoked!]}:2`)).toHaveLength(1);
    } finally {
      acquiring.open();
      renewing.open();
      for (const gate of letGo) gate.open();
      await Promise.all([first.bus.close(), second.bus.close()]);
    }
  }, 60_000);
});
