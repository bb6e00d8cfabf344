// The event store's contract, run against both databases it supports: embedded PGlite (in a temporary
// directory) and a fresh database on the Postgres server. Nothing is mocked.
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { applyMigrations, MigrationError, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, validateEnvelope, type EventEnvelope, type NewEvent } from '@trustmesh/platform-events';

import { ConcurrencyError, EventStoreError } from './event-store.errors';
import { EVENT_STORE_MIGRATIONS } from './event-store.migrations';
import { EventStore, openEventStore, type EventStoreOptions, type OutboxMessage } from './event-store';

const PRODUCER = 'event-store-spec@0.0.0';
const TOPIC = 'platform.spec-events.v1';

let streams = 0;
const newStream = (label = 'stream') => `${label}-${(streams += 1)}`;
const events = (count: number, label = 'Happened'): NewEvent[] =>
  Array.from({ length: count }, (_, index) => ({ eventType: label, data: { index, text: `event ${index}` } }));

async function caught(promise: Promise<unknown>): Promise<EventStoreError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EventStoreError) return error;
    throw error;
  }
  throw new Error('expected an EventStoreError');
}

describe.each(TEST_DATABASE_KINDS)('event store on %s', (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  let store: EventStore;
  const opened: EventStore[] = [];

  /** Another store on its own database handle: its own pg pool on a server, the shared instance on PGlite. */
  async function anotherStore(options: EventStoreOptions = {}): Promise<EventStore> {
    const other = await openEventStore(await testDb.open({ poolSize: 2 }), { producer: PRODUCER, defaultTopic: TOPIC, ...options });
    opened.push(other);
    return other;
  }

  /** Publishes whatever earlier tests left in the outbox, so a test sees only its own rows, and hands the lease back. */
  async function drainOutbox(): Promise<void> {
    await store.publishPending(async () => undefined, { batchSize: 1000 });
    await store.releaseOutbox();
  }

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'event-store');
    database = await testDb.open();
    // On a server, apps never migrate at startup: deploy first, as the deploy command would.
    if (database.mode === 'server') await applyMigrations(database, [EVENT_STORE_MIGRATIONS]);
    store = await openEventStore(database, { producer: PRODUCER, defaultTopic: TOPIC });
  });
  afterAll(async () => {
    await Promise.all([store, ...opened].map((each) => each.close()));
    await testDb.dispose();
  });

  describe('appending and reading', () => {
    it('keeps each stream in version order and every stream in one global order', async () => {
      const a = newStream();
      const b = newStream();
      const first = await store.append(a, 'no-stream', events(3), { correlationId: 'request-1', causationId: 'command-1' });
      await store.append(b, 'no-stream', events(2));
      const third = await store.append(a, 3, events(2, 'HappenedAgain'));

      expect(first.streamVersion).toBe(3);
      expect(third.streamVersion).toBe(5);
      const streamA = await store.readStream(a);
      expect(streamA.map(({ envelope }) => envelope.streamVersion)).toEqual([1, 2, 3, 4, 5]);
      expect(streamA.map(({ envelope }) => envelope.eventType)).toEqual(['Happened', 'Happened', 'Happened', 'HappenedAgain', 'HappenedAgain']);
      expect(streamA[0]?.envelope).toMatchObject({ streamId: a, correlationId: 'request-1', causationId: 'command-1', producer: PRODUCER, data: { index: 0, text: 'event 0' } });
      expect(streamA.every(({ envelope }) => validateEnvelope(envelope).ok)).toBe(true);
      // What append returned is what a read gives back.
      expect(streamA.slice(0, 3)).toEqual(first.events);

      const all = await store.readAll({ fromPosition: first.events[0]!.position });
      const positions = all.map(({ position }) => position);
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
      expect(new Set(positions).size).toBe(positions.length);
      expect(all.map(({ envelope }) => `${envelope.streamId}@${envelope.streamVersion}`)).toEqual([
        `${a}@1`, `${a}@2`, `${a}@3`, `${b}@1`, `${b}@2`, `${a}@4`, `${a}@5`,
      ]);
    });

    it('reads a stream from a version and a page of the log from a position', async () => {
      const stream = newStream();
      const { events: written } = await store.append(stream, 'no-stream', events(5));
      expect((await store.readStream(stream, { fromVersion: 3 })).map(({ envelope }) => envelope.streamVersion)).toEqual([3, 4, 5]);
      expect((await store.readStream(stream, { fromVersion: 2, limit: 2 })).map(({ envelope }) => envelope.streamVersion)).toEqual([2, 3]);
      expect(await store.readStream(newStream())).toEqual([]);
      const page = await store.readAll({ fromPosition: written[1]!.position, limit: 2 });
      expect(page.map(({ position }) => position)).toEqual([written[1]!.position, written[2]!.position]);
      const next = await store.readAll({ fromPosition: page[1]!.position + 1, limit: 10 });
      expect(next[0]?.position).toBe(written[3]!.position);
    });

    it('stores envelopes made elsewhere as they are', async () => {
      const stream = newStream();
      const made = [1, 2].map((streamVersion) =>
        createEnvelope({ eventType: 'DevicePaired', data: { deviceId: 'd' } }, { streamId: stream, streamVersion, producer: 'relay-gateway@0.1.0' }),
      );
      const result = await store.append(stream, 'no-stream', made);
      expect(result.events.map(({ envelope }) => envelope)).toEqual(made);
      expect((await store.readStream(stream)).map(({ envelope }) => envelope)).toEqual(made);
    });

    it('keeps JSON data as JSON: null, arrays, nested objects, unicode', async () => {
      const stream = newStream();
      const data = [null, [1, 'two', { three: 3 }], { nested: { deep: [true, false] } }, 'héllo ✓ 🌍'];
      await store.append(
        stream,
        'no-stream',
        data.map((each) => ({ eventType: 'Valued', data: each })),
      );
      expect((await store.readStream(stream)).map(({ envelope }) => envelope.data)).toEqual(data);
    });
  });

  describe('expected versions', () => {
    it("'no-stream' (or 0) only for a stream with no events", async () => {
      const stream = newStream();
      await store.append(stream, 0, events(1));
      const error = await caught(store.append(stream, 'no-stream', events(1)));
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect(error).toMatchObject({ code: 'STREAM_VERSION_CONFLICT', streamId: stream, expectedVersion: 0, actualVersion: 1 });
    });

    it('a number must be the current version exactly, neither behind nor ahead', async () => {
      const stream = newStream();
      await store.append(stream, 'no-stream', events(2));
      expect(await caught(store.append(stream, 1, events(1)))).toMatchObject({ code: 'STREAM_VERSION_CONFLICT', expectedVersion: 1, actualVersion: 2 });
      expect(await caught(store.append(stream, 3, events(1)))).toMatchObject({ code: 'STREAM_VERSION_CONFLICT', expectedVersion: 3, actualVersion: 2 });
      expect(await caught(store.append(newStream(), 1, events(1)))).toMatchObject({ code: 'STREAM_VERSION_CONFLICT', actualVersion: 0 });
      expect((await store.append(stream, 2, events(1))).streamVersion).toBe(3);
      expect(await store.streamVersion(stream)).toBe(3);
    });

    it("'any' appends after whatever is there", async () => {
      const stream = newStream();
      expect((await store.append(stream, 'any', events(2))).streamVersion).toBe(2);
      expect((await store.append(stream, 'any', events(1))).events[0]?.envelope.streamVersion).toBe(3);
      expect(await store.streamVersion(newStream())).toBe(0);
    });

    it('takes the versions of whole envelopes as the expectation', async () => {
      const stream = newStream();
      const at = (streamVersion: number) => createEnvelope({ eventType: 'Happened', data: {} }, { streamId: stream, streamVersion, producer: PRODUCER });
      await store.append(stream, 'any', [at(1), at(2)]);
      expect(await caught(store.append(stream, 'any', [at(2)]))).toMatchObject({ code: 'STREAM_VERSION_CONFLICT', expectedVersion: 1, actualVersion: 2 });
      expect((await caught(store.append(stream, 2, [at(4)]))).code).toBe('EVENT_VERSION_MISMATCH');
      expect((await caught(store.append(stream, 2, [at(3), at(5)]))).code).toBe('EVENT_VERSION_MISMATCH');
      expect((await store.append(stream, 2, [at(3)])).streamVersion).toBe(3);
    });

    it('refuses malformed expectations', async () => {
      for (const bad of [-1, 1.5, Number.NaN, 'latest' as never]) {
        expect((await caught(store.append(newStream(), bad, events(1)))).code).toBe('EXPECTED_VERSION_INVALID');
      }
    });
  });

  describe('concurrent appends', () => {
    it('racing on one expected version: exactly one writer wins, the others learn the actual version', async () => {
      const writers = await Promise.all(Array.from({ length: 6 }, () => anotherStore()));
      const stream = newStream('race');
      await store.append(stream, 'no-stream', events(1));
      const outcomes = await Promise.allSettled(writers.map((writer, index) => writer.append(stream, 1, [{ eventType: 'Won', data: { writer: index } }])));
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const lost = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(writers.length - 1);
      for (const error of lost) {
        expect(error).toBeInstanceOf(ConcurrencyError);
        expect(error).toMatchObject({ code: 'STREAM_VERSION_CONFLICT', expectedVersion: 1, actualVersion: 2 });
      }
      const stored = await store.readStream(stream);
      expect(stored.map(({ envelope }) => envelope.streamVersion)).toEqual([1, 2]);
    });

    it('appends made at once through one store each get their own answer, as if made one after another', async () => {
      const answer = (outcome: PromiseSettledResult<{ streamVersion: number }>) =>
        outcome.status === 'fulfilled' ? `v${outcome.value.streamVersion}` : (outcome.reason as EventStoreError).code;
      const contested = newStream('contested');
      // Made together, they queue behind the first and commit in one transaction, each checked in turn.
      const together = await Promise.allSettled([
        ...[1, 2, 3, 4].map(() => store.append(newStream('group'), 'no-stream', events(2))),
        store.append(contested, 'no-stream', events(1, 'First')),
        store.append(contested, 'no-stream', events(1, 'Second')),
        store.append(contested, 1, events(1, 'Third')),
        store.append(contested, 'any', events(1, 'Fourth')),
      ]);
      expect(together.map(answer)).toEqual(['v2', 'v2', 'v2', 'v2', 'v1', 'STREAM_VERSION_CONFLICT', 'v2', 'v3']);
      expect((await store.readStream(contested)).map(({ envelope }) => envelope.eventType)).toEqual(['First', 'Third', 'Fourth']);
      // Positions follow the order the appends were made in, as one after another would give them.
      const positions = together.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value.events.map(({ position }) => position) : []));
      expect(positions).toEqual([...positions].sort((x, y) => x - y));

      // An event id already stored fails its own append only, not those committed with it.
      const [stored] = (await store.append(newStream('earlier'), 'no-stream', events(1))).events;
      const duplicated = newStream('duplicated');
      const withDuplicate = await Promise.allSettled([
        store.append(newStream('before'), 'no-stream', events(1)),
        store.append(duplicated, 'no-stream', [{ ...stored!.envelope, streamId: duplicated, streamVersion: 1 }]),
        store.append(newStream('after'), 'no-stream', events(1)),
      ]);
      expect(withDuplicate.map(answer)).toEqual(['v1', 'DUPLICATE_EVENT_ID', 'v1']);
      expect(await store.readStream(duplicated)).toEqual([]);
    });

    it('many writers retrying on conflict: every version taken once, nothing lost, global order = commit order', async () => {
      const writers = await Promise.all(Array.from({ length: 4 }, () => anotherStore()));
      const stream = newStream('contended');
      const perWriter = 8;
      let conflicts = 0;
      await Promise.all(
        writers.map(async (writer, w) => {
          for (let i = 0; i < perWriter; ) {
            const version = await writer.streamVersion(stream);
            try {
              await writer.append(stream, version, [{ eventType: 'Counted', data: { writer: w, i } }]);
              i += 1;
            } catch (error) {
              if (!(error instanceof ConcurrencyError)) throw error;
              conflicts += 1;
            }
          }
        }),
      );
      const stored = await store.readStream(stream);
      expect(stored.map(({ envelope }) => envelope.streamVersion)).toEqual(Array.from({ length: writers.length * perWriter }, (_, i) => i + 1));
      // Positions increase with versions: the global order agrees with each stream's order.
      const positions = stored.map(({ position }) => position);
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
      for (let w = 0; w < writers.length; w += 1) {
        const mine = stored.filter(({ envelope }) => (envelope.data as { writer: number }).writer === w).map(({ envelope }) => (envelope.data as { i: number }).i);
        expect(mine).toEqual(Array.from({ length: perWriter }, (_, i) => i));
      }
      // Real races happened (on PGlite too: statements interleave between transactions).
      expect(conflicts).toBeGreaterThan(0);
    });
  });

  describe('outbox', () => {
    it('gets one row per appended event, in the same transaction, claimed in order with the envelope', async () => {
      await drainOutbox();
      const a = newStream();
      const b = newStream();
      await store.append(a, 'no-stream', events(2), { topic: 'registry.cards.v1' });
      await store.append(b, 'no-stream', events(1));
      await store.append(a, 2, events(1), { topic: null });
      expect(await store.outboxBacklog()).toBe(3);
      const claimed = await store.claimOutbox(10);
      expect(claimed.map(({ topic, envelope }) => `${topic} ${envelope.streamId}@${envelope.streamVersion}`)).toEqual([
        `registry.cards.v1 ${a}@1`,
        `registry.cards.v1 ${a}@2`,
        `${TOPIC} ${b}@1`,
      ]);
      expect(claimed.map(({ id }) => id)).toEqual([...claimed.map(({ id }) => id)].sort((x, y) => x - y));
      expect(claimed[0]?.envelope).toEqual((await store.readStream(a))[0]?.envelope);
      expect(await store.markPublished(claimed.map(({ id }) => id))).toBe(3);
      expect(await store.markPublished(claimed.map(({ id }) => id))).toBe(0);
      expect(await store.claimOutbox(10)).toEqual([]);
    });

    it('a refused append leaves no outbox row and no event', async () => {
      await drainOutbox();
      const stream = newStream();
      const [existing] = (await store.append(stream, 'no-stream', events(1))).events;
      await drainOutbox();
      await caught(store.append(stream, 'no-stream', events(2)));
      // The second event reuses an id already stored: the database refuses the whole append.
      const other = newStream();
      const reused: EventEnvelope[] = [
        createEnvelope({ eventType: 'Fresh', data: {} }, { streamId: other, streamVersion: 1, producer: PRODUCER }),
        { ...existing!.envelope, streamId: other, streamVersion: 2 },
      ];
      const duplicate = await caught(store.append(other, 'no-stream', reused));
      expect(duplicate.code).toBe('DUPLICATE_EVENT_ID');
      expect(duplicate.message).not.toMatch(/insert|constraint|duplicate key/i);
      expect(await store.readStream(other)).toEqual([]);
      expect(await store.outboxBacklog()).toBe(0);
    });

    it('redelivers what a publisher claimed but never confirmed, once its lease runs out', async () => {
      await drainOutbox();
      const stream = newStream();
      await store.append(stream, 'no-stream', events(2));
      const crashed = await anotherStore({ outboxLeaseMs: 400 });
      const survivor = await anotherStore({ outboxLeaseMs: 400 });
      const firstClaim = await crashed.claimOutbox(10);
      expect(firstClaim).toHaveLength(2);
      // `crashed` never marks them published and never renews its lease.
      expect(await survivor.claimOutbox(10)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const again = await survivor.claimOutbox(10);
      expect(again.map(({ id }) => id)).toEqual(firstClaim.map(({ id }) => id));
      expect(await survivor.markPublished(again.map(({ id }) => id))).toBe(2);
      await survivor.releaseOutbox();
    });

    it('keeps a batch whose publish failed for the next attempt, first in line', async () => {
      await drainOutbox();
      const stream = newStream();
      await store.append(stream, 'no-stream', events(3));
      const bus = new Error('broker down');
      await expect(store.publishPending(async () => Promise.reject(bus), { batchSize: 2 })).rejects.toBe(bus);
      const delivered: OutboxMessage[] = [];
      expect(await store.publishPending(async (batch) => void delivered.push(...batch), { batchSize: 2 })).toBe(3);
      expect(delivered.map(({ envelope }) => envelope.streamVersion)).toEqual([1, 2, 3]);
    });

    it('lets one publisher at a time claim', async () => {
      await drainOutbox();
      await store.append(newStream(), 'no-stream', events(2));
      const publishers = await Promise.all(Array.from({ length: 3 }, () => anotherStore()));
      const claims = await Promise.all(publishers.map((publisher) => publisher.claimOutbox(10)));
      expect(claims.map((claim) => claim.length).sort()).toEqual([0, 0, 2]);
      await Promise.all(publishers.map((publisher) => publisher.close())); // close() hands the lease back
      expect(await store.claimOutbox(10)).toHaveLength(2);
    });

    it('renews the lease while a batch is published: a second publisher claims nothing however long the bus takes', async () => {
      await drainOutbox();
      await store.append(newStream(), 'no-stream', events(2));
      const slow = await anotherStore({ outboxLeaseMs: 300 });
      const other = await anotherStore({ outboxLeaseMs: 300 });
      const claimsMeanwhile: number[] = [];
      // The bus takes several lease periods to confirm (a broker outage); the other publisher keeps trying.
      const published = await slow.publishPending(async () => {
        for (let round = 0; round < 8; round += 1) {
          await new Promise((resolve) => setTimeout(resolve, 150));
          claimsMeanwhile.push((await other.claimOutbox(10)).length);
        }
      });
      expect(published).toBe(2);
      expect(claimsMeanwhile).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
      await slow.releaseOutbox();
    });

    it('never marks a batch published once its lease was taken over: the batch stays for the new holder', async () => {
      await drainOutbox();
      await store.append(newStream(), 'no-stream', events(2));
      const first = await anotherStore({ outboxLeaseMs: 60_000 });
      const second = await anotherStore({ outboxLeaseMs: 60_000 });
      const attempt = first.publishPending(async (batch) => {
        // While the bus holds this batch, the lease runs out (the process stalled) and another takes it.
        await database.withConnection((sql) => sql.query("UPDATE outbox_leases SET expires_at = now() - interval '1 second'"));
        expect(await second.claimOutbox(10)).toHaveLength(batch.length);
      });
      expect((await caught(attempt)).code).toBe('OUTBOX_LEASE_LOST');
      expect(await store.outboxBacklog()).toBe(2);
      // The old holder cannot mark rows either, whatever it claimed before.
      const [row] = await second.claimOutbox(10);
      expect((await caught(first.markPublished([row!.id]))).code).toBe('OUTBOX_LEASE_LOST');
      expect(await second.publishPending(async () => undefined)).toBe(2);
      await second.releaseOutbox();
    });

    it('does not come back with a lease it gave back: a publisher that released must claim again', async () => {
      await drainOutbox();
      await store.append(newStream(), 'no-stream', events(1));
      const publisher = await anotherStore();
      const [row] = await publisher.claimOutbox(10);
      await publisher.releaseOutbox();
      expect((await caught(publisher.markPublished([row!.id]))).code).toBe('OUTBOX_LEASE_LOST');
      expect(await publisher.publishPending(async () => undefined)).toBe(1);
      await publisher.releaseOutbox();
    });

    it('purges published rows but keeps the events', async () => {
      await drainOutbox();
      const stream = newStream();
      await store.append(stream, 'no-stream', events(1));
      await drainOutbox();
      expect(await store.purgePublishedOutbox(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(1);
      expect(await store.readStream(stream)).toHaveLength(1);
    });
  });

  describe('limits and refusals', () => {
    it('refuses event data above the byte limit (1 MiB by default), writing nothing', async () => {
      const stream = newStream();
      const justTooBig = { blob: 'x'.repeat(1024 * 1024 - '{"blob":""}'.length + 1) };
      const error = await caught(store.append(stream, 'no-stream', [{ eventType: 'Small', data: {} }, { eventType: 'Huge', data: justTooBig }]));
      expect(error).toMatchObject({ code: 'EVENT_DATA_TOO_LARGE', eventIndex: 1 });
      expect(error.message).toContain('1048577 bytes');
      expect(await store.streamVersion(stream)).toBe(0);
      const fits = { blob: 'x'.repeat(1024 * 1024 - '{"blob":""}'.length) };
      expect((await store.append(stream, 'no-stream', [{ eventType: 'Big', data: fits }])).streamVersion).toBe(1);
    });

    it('counts the limit in UTF-8 bytes and takes a configured limit', async () => {
      const small = await anotherStore({ maxEventDataBytes: 16 });
      expect((await caught(small.append(newStream(), 'no-stream', [{ eventType: 'Accented', data: 'éééééééé' }]))).code).toBe('EVENT_DATA_TOO_LARGE');
      expect((await small.append(newStream(), 'no-stream', [{ eventType: 'Plain', data: 'eeeeeeeeeeeeee' }])).streamVersion).toBe(1);
    });

    it('names every other refusal by code', async () => {
      const codeOf = async (promise: Promise<unknown>) => (await caught(promise)).code;
      expect(await codeOf(store.append('', 'any', events(1)))).toBe('STREAM_ID_INVALID');
      expect(await codeOf(store.append(' padded ', 'any', events(1)))).toBe('STREAM_ID_INVALID');
      expect(await codeOf(store.append('x'.repeat(201), 'any', events(1)))).toBe('STREAM_ID_INVALID');
      expect(await codeOf(store.append(newStream(), 'any', []))).toBe('EVENTS_EMPTY');
      expect(await codeOf(store.append(newStream(), 'any', [{ eventType: 'not pascal', data: {} }]))).toBe('EVENT_INVALID');
      expect(await codeOf(store.append(newStream(), 'any', [{ eventType: 'Cyclic', data: BigInt(1) }]))).toBe('EVENT_DATA_INVALID');
      expect(await codeOf(store.append(newStream(), 'any', [{ eventType: 'Nul', data: 'a\u0000b' }]))).toBe('EVENT_DATA_INVALID');
      expect(await codeOf(store.append(newStream(), 'any', events(1), { topic: 'no spaces' }))).toBe('TOPIC_INVALID');
      expect(await codeOf(store.readStream(newStream(), { fromVersion: 0 }))).toBe('READ_OPTIONS_INVALID');
      expect(await codeOf(store.readAll({ limit: 100_000 }))).toBe('READ_OPTIONS_INVALID');
      expect(await codeOf(store.claimOutbox(0))).toBe('OUTBOX_OPTIONS_INVALID');
      const bare = await anotherStore({ producer: undefined, defaultTopic: undefined });
      expect(await codeOf(bare.append(newStream(), 'any', events(1)))).toBe('TOPIC_MISSING');
      expect(await codeOf(bare.append(newStream(), 'any', events(1), { topic: TOPIC }))).toBe('PRODUCER_MISSING');
      const invalid = await caught(store.append(newStream(), 'any', [{ eventType: 'ok', data: {} }]));
      expect(invalid.issues?.map(({ code, field }) => `${code}:${field}`)).toEqual(['ENVELOPE_FIELD_INVALID:eventType']);
    });

    it('reports a database failure as STORE_FAILED without driver text, and refuses use after close', async () => {
      const handle = await testDb.open();
      const doomed = await openEventStore(handle, { producer: PRODUCER, defaultTopic: TOPIC });
      if (handle.mode === 'server') {
        await handle.close(); // its pool is gone under the store
        const error = await caught(doomed.readAll());
        expect(error.code).toBe('STORE_FAILED');
        expect(error.message).toBe('The event store could not read.');
      }
      await doomed.close();
      expect((await caught(doomed.append(newStream(), 'any', events(1)))).code).toBe('STORE_CLOSED');
    });
  });

  describe('schema', () => {
    it('is migrated once: a rerun applies nothing, a tampered migration is refused', async () => {
      const [rerun] = await applyMigrations(database, [EVENT_STORE_MIGRATIONS]);
      expect(rerun).toEqual({ library: 'platform-event-store', applied: [], alreadyApplied: 2 });
      const copy = await mkdtemp(join(tmpdir(), 'event-store-migrations-'));
      try {
        await cp(EVENT_STORE_MIGRATIONS.directory, copy, { recursive: true });
        const [first] = (await readdir(copy)).filter((name) => /^\d{14}_/.test(name));
        await writeFile(join(copy, first!, 'migration.sql'), '-- edited after it was applied\nSELECT 1;\n');
        const error = await applyMigrations(database, [{ library: EVENT_STORE_MIGRATIONS.library, directory: copy }]).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MigrationError);
        expect(error).toMatchObject({ code: 'MIGRATION_CHECKSUM_MISMATCH' });
      } finally {
        await rm(copy, { recursive: true, force: true });
      }
    });
  });
});

describe.each(TEST_DATABASE_KINDS)('event store outbox across a restart on %s', (kind) => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'event-store-restart');
  });
  afterAll(async () => {
    await testDb.dispose();
  });

  it('survives a crash between commit and publish: a restarted publisher finds the rows', async () => {
    const before = await testDb.open();
    if (before.mode === 'server') await applyMigrations(before, [EVENT_STORE_MIGRATIONS]);
    const writer = await openEventStore(before, { producer: PRODUCER, defaultTopic: TOPIC });
    await writer.append('order-1', 'no-stream', events(3));
    // The process stops after the commit, before any publish: every handle goes (PGlite closes its files).
    await writer.close();
    await before.close();

    const after = await testDb.open();
    const restarted = await openEventStore(after, { producer: PRODUCER, defaultTopic: TOPIC });
    const seen: string[] = [];
    const published = await restarted.publishPending(async (batch) => {
      seen.push(...batch.map(({ topic, envelope }) => `${topic} ${envelope.streamId}@${envelope.streamVersion}`));
    });
    expect(published).toBe(3);
    expect(seen).toEqual([`${TOPIC} order-1@1`, `${TOPIC} order-1@2`, `${TOPIC} order-1@3`]);
    expect(await restarted.outboxBacklog()).toBe(0);
    await restarted.close();
  });
});

describe('event store migrations on a Postgres server', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase('postgres', 'event-store-migrate');
  });
  afterAll(async () => {
    await testDb.dispose();
  });

  it('are not applied at startup, and concurrent deploys apply them once', async () => {
    const database = await testDb.open();
    const refused = await openEventStore(database).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'MIGRATIONS_PENDING' });

    const deployers = await Promise.all(Array.from({ length: 3 }, () => testDb.open({ poolSize: 1 })));
    const reports = await Promise.all(deployers.map((deployer) => applyMigrations(deployer, [EVENT_STORE_MIGRATIONS])));
    expect(reports.map(([report]) => report?.applied.length).sort()).toEqual([0, 0, 2]);

    const store = await openEventStore(database, { producer: PRODUCER, defaultTopic: TOPIC });
    expect((await store.append('after-deploy', 'no-stream', events(1))).streamVersion).toBe(1);
    await store.close();
  });
});
