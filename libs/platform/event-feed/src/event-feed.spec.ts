/**
 * An EventFeed between two processes' local buses, with real parts: two embedded PGlite databases (each with its
 * own local bus, as two `npm start` apps have), the feed served on a real gRPC server on port 0, and a mirror that
 * copies the topic into the follower's log through a real gRPC client. What a follower's consumers notice: every
 * record once, in order per stream, across restarts and an outage of the serving app; and what a stranger notices:
 * refusals with a status and a stable code.
 */
import * as grpc from '@grpc/grpc-js';
import { bindPlaintext, eventFeedV1GrpcJs, shutdownGracefully } from '@trustmesh/contracts';
import { createLocalEventBus, LOCAL_BUS_MIGRATIONS, type BusRecord, type LocalEventBus } from '@trustmesh/platform-bus';
import { sha256 } from '@trustmesh/platform-credentials';
import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import type { Logger, LogFields, LogLevel } from '@trustmesh/platform-logging';
import { uniqueName, waitUntil } from '@trustmesh/platform-testing';

import { eventFeedClient, FeedReadError } from './event-feed.client';
import { eventFeedService } from './event-feed.server';
import { TopicFeedMirror } from './feed-mirror';

const TOPIC = 'feed.counters.v1';
const CREDENTIAL = 'feed-spec-credential-0123456789abcdef';

interface Line {
  level: LogLevel;
  message: string;
  fields: LogFields;
}

function recordingLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  return { lines, log: (level, message, fields = {}) => void lines.push({ level, message, fields }) };
}

const event = (streamId: string, streamVersion: number): EventEnvelope => createEnvelope({ eventType: 'CounterIncremented', data: { n: streamVersion } }, { streamId, streamVersion, producer: 'feed-spec@0' });
const eventsOf = (streams: readonly string[], from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => streams.map((stream) => event(stream, from + i))).flat();

/** One app: its database, handle and local bus (partitions differ per side on purpose: keys decide placement). */
interface App {
  testDb: TestDatabase;
  database: Database;
  bus: LocalEventBus;
}

async function openApp(label: string, partitions: number, testDb?: TestDatabase): Promise<App> {
  const db = testDb ?? (await createTestDatabase('pglite', label));
  const database = await db.open();
  const bus = await createLocalEventBus({ bus: { adapter: 'local', kafka: null, topicPrefix: '', maxAttempts: 3, retryBackoffMs: 20, localPartitions: partitions }, database: db.config }, database, {
    logger: { log: () => undefined },
    consumer: { heartbeatIntervalMs: 50, sessionTimeoutMs: 1_000, pollIntervalMs: 2_000 },
  });
  return { testDb: db, database, bus };
}

async function closeApp(app: App): Promise<void> {
  await app.bus.close();
  await app.database.close();
}

/** The feed of `bus` on a real gRPC server; `port` 0 picks one. */
async function serveFeed(bus: LocalEventBus, port = 0): Promise<{ address: string; close(): Promise<void> }> {
  const server = new grpc.Server();
  const { definition, implementation } = eventFeedService({ bus, topics: [TOPIC], followers: [{ name: 'spec', digest: sha256(CREDENTIAL) }], logger: recordingLogger() });
  server.addService(definition, implementation);
  const bound = await bindPlaintext(server, '127.0.0.1', port);
  return { address: `127.0.0.1:${bound}`, close: () => shutdownGracefully(server) };
}

const target = (address: string, credential = CREDENTIAL) => ({ address, tls: null, credential: { reveal: () => credential } });

/** Every record of the topic in `app`'s log, as `stream:version`, in offset order per partition. */
async function copiedKeys(app: App): Promise<string[]> {
  const rows = await app.database.withConnection((sql) =>
    sql.query<{ value: string }>(`SELECT value FROM bus_messages WHERE topic = $1 ORDER BY partition, "offset"`, [TOPIC]),
  );
  return rows.map((row) => {
    const envelope = JSON.parse(row.value) as EventEnvelope;
    return `${envelope.streamId}:${envelope.streamVersion}`;
  });
}

function expectInStreamOrder(keys: readonly string[]): void {
  const last = new Map<string, number>();
  for (const key of keys) {
    const [stream, version] = [key.slice(0, key.lastIndexOf(':')), Number(key.slice(key.lastIndexOf(':') + 1))];
    expect(version).toBe((last.get(stream) ?? 0) + 1);
    last.set(stream, version);
  }
}

describe('an EventFeed between two local buses (PGlite, gRPC)', () => {
  const opened: App[] = [];
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    for (const app of opened.splice(0)) await app.testDb.dispose().catch(() => undefined);
  }, 60_000);

  async function pair() {
    const source = await openApp(uniqueName('feed-source'), 4);
    const follower = await openApp(uniqueName('feed-follower'), 3);
    opened.push(source, follower);
    return { source, follower };
  }

  it('copies every record once, in order per stream, wakes the follower\'s consumers, and resumes after a restart without duplicates', async () => {
    const { source, follower } = await pair();
    cleanups.push(() => closeApp(source));
    const feed = await serveFeed(source.bus);
    cleanups.push(() => feed.close());
    const streams = ['s-a', 's-b', 's-c', 's-d', 's-e'];
    await source.bus.publish(TOPIC, eventsOf(streams, 1, 20));

    const client = eventFeedClient(target(feed.address));
    let mirror = new TopicFeedMirror({ bus: follower.bus, topic: TOPIC, read: client.read, logger: recordingLogger(), maxRecords: 7, waitMs: 2_000 });
    mirror.start();
    // A consumer of the follower's own bus, as the app's projection is.
    const seen: string[] = [];
    const subscription = await follower.bus.subscribe({
      groupId: 'feed-spec-consumer',
      topics: [TOPIC],
      handler: async (record: BusRecord) => void seen.push(`${record.envelope.streamId}:${record.envelope.streamVersion}`),
    });
    await waitUntil(async () => (await copiedKeys(follower)).length >= 100, { timeoutMs: 30_000, what: 'the first 100 records copied' });
    await waitUntil(() => seen.length >= 100, { timeoutMs: 30_000, what: 'the follower\'s consumer to see them' });
    await subscription.stop();
    expect(mirror.state()).toMatchObject({ status: 'following', lagRecords: 0, failures: 0 });

    // The follower stops (as a process would), more is published meanwhile, and a new process resumes.
    await mirror.stop();
    expect(mirror.state().status).toBe('stopped');
    await closeApp(follower);
    await source.bus.publish(TOPIC, eventsOf(streams, 21, 30));
    const restarted = await openApp('unused', 3, follower.testDb);
    cleanups.push(() => closeApp(restarted));
    mirror = new TopicFeedMirror({ bus: restarted.bus, topic: TOPIC, read: client.read, logger: recordingLogger(), waitMs: 2_000 });
    mirror.start();
    cleanups.push(async () => {
      await mirror.stop();
      client.close();
    });
    await waitUntil(async () => (await copiedKeys(restarted)).length >= 150, { timeoutMs: 30_000, what: 'the records published while the follower was down' });

    const keys = await copiedKeys(restarted);
    expect(keys).toHaveLength(150);
    expect(new Set(keys).size).toBe(150);
    expectInStreamOrder(keys);
    // The long poll answers as soon as something is published: one more record arrives without a restart.
    await source.bus.publish(TOPIC, [event('s-a', 31)]);
    await waitUntil(async () => (await copiedKeys(restarted)).includes('s-a:31'), { timeoutMs: 10_000, what: 'a record published while the mirror waits' });
  }, 120_000);

  it('never writes a page twice: a page from a position the log has moved past is refused whole', async () => {
    const { follower } = await pair();
    cleanups.push(() => closeApp(follower));
    const record = (offset: string, version: number) => ({ offset, key: 's', value: JSON.stringify(event('s', version)), headers: {} });
    const page = { remoteLog: 'local:x@1', partition: 0, fromOffset: '0', records: [record('0', 1), record('1', 2)] };
    expect(await follower.bus.appendMirrored(TOPIC, page)).toBe('appended');
    // A second follower (or this one, after a crash it cannot tell from a lost answer) holding the same page.
    expect(await follower.bus.appendMirrored(TOPIC, page)).toBe('moved');
    expect(await copiedKeys(follower)).toEqual(['s:1', 's:2']);
    expect(await follower.bus.mirrorPosition(TOPIC)).toEqual({ remoteLog: 'local:x@1', next: new Map([[0, '2']]) });
    // Another remote log starts afresh from 0, and the old log's positions go with it.
    expect(await follower.bus.appendMirrored(TOPIC, { remoteLog: 'local:x@2', partition: 1, fromOffset: '0', records: [record('0', 3)] })).toBe('appended');
    expect(await follower.bus.mirrorPosition(TOPIC)).toEqual({ remoteLog: 'local:x@2', next: new Map([[1, '1']]) });
  }, 60_000);

  it('two followers on one Postgres database copying the same first page at once: one appends it, the other finds it moved', async () => {
    const testDb = await createTestDatabase('postgres', uniqueName('feed-followers'));
    // A server database gets its migrations deployed before apps start, as `trustmesh db migrate deploy` does.
    const migrating = await testDb.open();
    await applyMigrations(migrating, [LOCAL_BUS_MIGRATIONS]);
    await migrating.close();
    const first = await openApp('feed-follower-a', 3, testDb);
    const second = await openApp('feed-follower-b', 3, testDb);
    opened.push(first);
    cleanups.push(() => closeApp(first), () => closeApp(second));
    const record = (offset: string, version: number) => ({ offset, key: 's', value: JSON.stringify(event('s', version)), headers: {} });
    const page = { remoteLog: 'local:y@1', partition: 2, fromOffset: '0', records: [record('0', 1), record('1', 2), record('2', 3)] };
    const outcomes = await Promise.all([first.bus.appendMirrored(TOPIC, page), second.bus.appendMirrored(TOPIC, page)]);
    expect([...outcomes].sort()).toEqual(['appended', 'moved']);
    expect(await copiedKeys(first)).toEqual(['s:1', 's:2', 's:3']);
    expect(await second.bus.mirrorPosition(TOPIC)).toEqual({ remoteLog: 'local:y@1', next: new Map([[2, '3']]) });
  }, 60_000);

  it('refuses strangers, unserved topics and out-of-bounds requests with a status and a stable code', async () => {
    const { source } = await pair();
    cleanups.push(() => closeApp(source));
    const feed = await serveFeed(source.bus);
    cleanups.push(() => feed.close());
    await source.bus.publish(TOPIC, eventsOf(['s-1'], 1, 5));
    await source.bus.publish('feed.private.v1', [event('p', 1)]);

    const refusal = async (credential: string | null, request: Partial<eventFeedV1GrpcJs.ReadTopicRequest>) => {
      const client = new eventFeedV1GrpcJs.EventFeedClient(feed.address, grpc.credentials.createInsecure());
      const metadata = new grpc.Metadata();
      if (credential !== null) metadata.set('authorization', `Bearer ${credential}`);
      try {
        return await new Promise<{ status: grpc.status; code: unknown; details: string } | 'answered'>((resolve) =>
          client.readTopic({ topic: TOPIC, positions: [], maxRecords: 0, waitMs: 0, ...request }, metadata, (error) =>
            resolve(error ? { status: error.code, code: error.metadata.get('feed-error-code')[0], details: error.details } : 'answered'),
          ),
        );
      } finally {
        client.close();
      }
    };
    expect(await refusal(null, {})).toMatchObject({ status: grpc.status.UNAUTHENTICATED, code: 'FEED_UNAUTHENTICATED' });
    expect(await refusal('feed-spec-wrong-credential-000000', {})).toMatchObject({ status: grpc.status.UNAUTHENTICATED, code: 'FEED_UNAUTHENTICATED' });
    // A topic that exists but is not served looks like one that does not exist.
    const hidden = await refusal(CREDENTIAL, { topic: 'feed.private.v1' });
    expect(hidden).toMatchObject({ status: grpc.status.NOT_FOUND, code: 'FEED_TOPIC_NOT_SERVED' });
    expect(await refusal(CREDENTIAL, { topic: 'feed.nothing.v1' })).toEqual(hidden);
    expect(await refusal(CREDENTIAL, { maxRecords: 1_001 })).toMatchObject({ status: grpc.status.INVALID_ARGUMENT, code: 'FEED_REQUEST_INVALID' });
    expect(await refusal(CREDENTIAL, { waitMs: 20_001 })).toMatchObject({ status: grpc.status.INVALID_ARGUMENT, code: 'FEED_REQUEST_INVALID' });
    expect(await refusal(CREDENTIAL, { positions: [{ partition: 0, fromOffset: 0 }, { partition: 0, fromOffset: 1 }] })).toMatchObject({ code: 'FEED_REQUEST_INVALID' });
    expect(await refusal(CREDENTIAL, { positions: Array.from({ length: 257 }, (_, partition) => ({ partition, fromOffset: 0 })) })).toMatchObject({ code: 'FEED_REQUEST_INVALID' });
    expect(await refusal(CREDENTIAL, { positions: [{ partition: 4, fromOffset: 0 }] })).toMatchObject({ status: grpc.status.INVALID_ARGUMENT, code: 'FEED_PARTITION_UNKNOWN' });
    expect(await refusal(CREDENTIAL, { positions: [0, 1, 2, 3].map((partition) => ({ partition, fromOffset: 6 })) })).toMatchObject({ status: grpc.status.OUT_OF_RANGE, code: 'FEED_OFFSET_AHEAD' });
    // Refusals say what to do, never anything internal.
    expect(hidden).not.toBe('answered');
    if (hidden !== 'answered') expect(hidden.details).not.toMatch(/private|sql|select/i);

    // Pages are bounded by max_records, and the client maps refusals to its error.
    const client = eventFeedClient(target(feed.address));
    cleanups.push(async () => client.close());
    const page = await client.read({ topic: TOPIC, positions: [0, 1, 2, 3].map((partition) => ({ partition, fromOffset: 0 })), maxRecords: 3, waitMs: 0 });
    expect(page.records).toHaveLength(3);
    expect(page.partitions).toBe(4);
    expect(page.endOffsets.reduce((sum, end) => sum + end.endOffset, 0)).toBe(5);
    await expect(eventFeedClient(target(feed.address, 'feed-spec-wrong-credential-000000')).read({ topic: TOPIC, positions: [], maxRecords: 1, waitMs: 0 })).rejects.toEqual(
      new FeedReadError('FEED_UNAUTHENTICATED', grpc.status.UNAUTHENTICATED),
    );
  }, 60_000);

  it('rides out the serving app going away: retries with a stable code logged once, then catches up when it is back', async () => {
    const { source, follower } = await pair();
    cleanups.push(() => closeApp(source), () => closeApp(follower));
    let feed = await serveFeed(source.bus);
    const port = Number(feed.address.split(':')[1]);
    await source.bus.publish(TOPIC, eventsOf(['s-1', 's-2'], 1, 3));
    const client = eventFeedClient(target(feed.address));
    const logger = recordingLogger();
    const mirror = new TopicFeedMirror({ bus: follower.bus, topic: TOPIC, read: client.read, logger, waitMs: 500, retry: { initialMs: 20, maxMs: 100 }, logIntervalMs: 60_000 });
    mirror.start();
    cleanups.push(async () => {
      await mirror.stop();
      client.close();
    });
    await waitUntil(async () => (await copiedKeys(follower)).length === 6, { timeoutMs: 20_000, what: 'the first records' });

    await feed.close();
    await source.bus.publish(TOPIC, eventsOf(['s-1', 's-2'], 4, 6));
    await waitUntil(() => mirror.state().failures >= 5, { timeoutMs: 20_000, what: 'the mirror to fail a few times' });
    expect(mirror.state()).toMatchObject({ status: 'retrying', lastErrorCode: 'FEED_UNREACHABLE' });
    const warnings = logger.lines.filter((line) => line.fields['code'] === 'FEED_UNREACHABLE');
    expect(warnings).toHaveLength(1);

    feed = await serveFeed(source.bus, port);
    cleanups.push(() => feed.close());
    await waitUntil(async () => (await copiedKeys(follower)).length === 12, { timeoutMs: 30_000, what: 'the records published during the outage' });
    await waitUntil(() => mirror.state().status === 'following', { timeoutMs: 10_000, what: 'the mirror to follow again' });
    expect(logger.lines.some((line) => line.message === 'event feed mirror: following again')).toBe(true);
    expectInStreamOrder(await copiedKeys(follower));
  }, 90_000);

  it('copies a replaced remote log (the serving app\'s data wiped) from its start', async () => {
    const { source, follower } = await pair();
    cleanups.push(() => closeApp(follower));
    const feed = await serveFeed(source.bus);
    const port = Number(feed.address.split(':')[1]);
    await source.bus.publish(TOPIC, eventsOf(['s-old'], 1, 4));
    const client = eventFeedClient(target(feed.address));
    const logger = recordingLogger();
    const mirror = new TopicFeedMirror({ bus: follower.bus, topic: TOPIC, read: client.read, logger, waitMs: 300, retry: { initialMs: 20, maxMs: 100 } });
    mirror.start();
    cleanups.push(async () => {
      await mirror.stop();
      client.close();
    });
    await waitUntil(async () => (await copiedKeys(follower)).length === 4, { timeoutMs: 20_000, what: 'the old log' });

    await feed.close();
    await closeApp(source);
    const wiped = await openApp(uniqueName('feed-source-wiped'), 4);
    opened.push(wiped);
    cleanups.push(() => closeApp(wiped));
    await wiped.bus.publish(TOPIC, eventsOf(['s-new'], 1, 2));
    const again = await serveFeed(wiped.bus, port);
    cleanups.push(() => again.close());

    await waitUntil(async () => (await copiedKeys(follower)).length === 6, { timeoutMs: 30_000, what: 'the new log copied from 0' });
    expect((await copiedKeys(follower)).filter((key) => key.startsWith('s-new'))).toEqual(['s-new:1', 's-new:2']);
    expect(logger.lines.some((line) => line.fields['code'] === 'FEED_LOG_REPLACED')).toBe(true);
  }, 90_000);
});
