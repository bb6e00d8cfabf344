/**
 * The `local` adapter of the event bus port: topics, partitions, offsets and consumer groups in the
 * platform database, for a single machine (ARCHITECTURE.md, "Two ways to run"): every app in one process
 * on embedded PGlite, or several `nx serve` processes sharing one Postgres server, see the same streams
 * without Kafka, with the port's semantics.
 *
 * - publish: envelopes are validated and size-checked (nothing is published if one is refused), then
 *   appended in one transaction, each on the partition Kafka's default partitioner would choose for its
 *   stream id (`partitioner.ts`), with offsets taken atomically per partition (`local-log.store.ts`). It
 *   resolves after the commit, and the commit wakes the consumers (`wake-ups.ts`).
 * - publish within another writer's transaction (`prepareInTransaction`): for a writer on the bus's own
 *   database (the event store's appends, embedded), the messages commit or roll back with that writer's rows,
 *   so nothing stands between them (no outbox rows to claim, publish and mark). Same checks, same log.
 * - subscribe: a consumer-group member that leases partitions (`local-subscription.ts`) and consumes each
 *   in order (`partition-worker.ts`), with tries, backoff and the DLQ as the kafka adapter has them.
 * - topics carry the configured prefix in the database, services and handlers see the plain names; a
 *   topic's partition count is fixed when it is first used, by whichever process.
 * - health: ready when the database answers within the health timeout and has the bus tables.
 * - topics shared with another process (`local-log.mirror.ts`): a page of a topic for a follower in another
 *   process (`readFeed`, with `awaitRecords` for its long poll), and the follower's side, copying a remote
 *   page into this log together with how far it got (`mirrorPosition`, `appendMirrored`). The transport (an
 *   EventFeed over gRPC) is `@trustmesh/platform-event-feed`'s.
 * - close: stops every subscription (each finishes its message in hand, commits and leaves its group),
 *   then stops its wake-up listener. The `Database` it was given stays open: its owner closes it.
 */
import type { Database, SqlConnection, SqlExecutor } from '@trustmesh/platform-database';
import type { EventEnvelope, EventMessage } from '@trustmesh/platform-events';

import { OptionProblems } from '../adapter-options';
import { BusError } from '../bus.error';
import { within } from '../deadline';
import { deadLetterTopic, type BusHealth, type EventBus, type SubscribeOptions, type Subscription } from '../event-bus.port';
import { defaultAdapterLogger, describeError, type BusLogger } from '../bus-log';
import { publishableMessages } from '../publish-checks';
import { checkSubscribeOptions, MAX_ATTEMPTS_LIMIT } from '../subscribe-options';
import { serviceTopicName, storedGroupName, storedTopicName, subscribedTopicNames } from '../topic-name';
import { appendAtomically, appendMessages, appendMessagesPart, ensureTopic } from './local-log.store';
import { appendMirroredPage, readFeedPage, readMirrorPosition, type FeedPage, type FeedPosition, type FeedReadLimits, type FeedReadProblem, type MirroredPage, type MirrorPosition } from './local-log.mirror';
import { LocalSubscription, type LocalConsumerTuning, type SubscriptionPlan, type SubscriptionRuntime } from './local-subscription';
import { schemaMissingOr } from './schema-missing';
import { inProcessWakeUps, type WakeUp, type WakeUpSource } from './wake-ups';

export interface LocalEventBusOptions {
  /** The platform database; the bus uses it and never closes it. */
  database: Database;
  /** Prepended to every topic name in the database (`TRUSTMESH_TOPIC_PREFIX`). */
  topicPrefix?: string;
  /** Partitions of the topics this bus creates (`TRUSTMESH_LOCAL_BUS_PARTITIONS`, 1–256). */
  partitions: number;
  /** Tries per message before the DLQ, unless a subscription says otherwise (1–100). */
  maxAttempts: number;
  /** Delay after the first failed try; it doubles per try. */
  retryBackoffMs: number;
  /** Ceiling of the retry delay (default 30 s). */
  maxRetryBackoffMs?: number;
  /** Largest message accepted, key, value and headers in UTF-8 bytes (default 1 MiB). */
  maxMessageBytes?: number;
  /** How consumers hear of changes (default: in-process only, which is all of them on embedded PGlite). */
  wakeUps?: WakeUpSource;
  consumer?: Partial<LocalConsumerTuning>;
  /** Where the adapter's log lines go (default: JSON lines on stderr, from `info`). */
  logger?: BusLogger;
  /** Longest a health check waits for the database (default 5 s). */
  healthTimeoutMs?: number;
}

export const DEFAULT_LOCAL_CONSUMER_TUNING: Readonly<LocalConsumerTuning> = {
  heartbeatIntervalMs: 1_000,
  sessionTimeoutMs: 10_000,
  pollIntervalMs: 1_000,
  fetchBatchSize: 100,
  wakeUpLingerMs: 0,
  partitionsConsumedConcurrently: 1,
};

export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

/** A publish to one topic that runs inside a transaction of the caller's, on the bus's database. */
export interface InTransactionPublish {
  /**
   * Checks the envelopes as `publish` does (nothing is written if one is refused: it throws `BusError`) and
   * appends them through `tx`, the caller's open transaction on the bus's database; they become visible
   * when it commits and vanish if it rolls back.
   */
  write(tx: SqlExecutor, envelopes: readonly EventEnvelope[]): Promise<void>;
  /**
   * The same write as part of the caller's own statement, when it can be one: common table expressions
   * (named `bus_…`) to add to the caller's `WITH`, appending only when `condition` (an SQL boolean over the
   * caller's expressions) holds, with parameters from `$firstParam` on. Then the caller needs no transaction
   * for the two. Undefined when it cannot be (envelopes of several partitions, too many for one statement,
   * or wake-ups that must be announced in a transaction): use `write` in a transaction. Checks and throws as
   * `write` does; call `committed` after the statement.
   */
  statementPart(envelopes: readonly EventEnvelope[], firstParam: number, condition: string): { ctes: string; params: unknown[] } | undefined;
  /** After the caller's transaction (or statement) committed: wakes the topic's consumers (never throws). */
  committed(): void;
}

/**
 * What a writer needs to publish in its own transactions: the database they must run on, and the publish
 * for a topic. `prepareInTransaction` does what cannot run inside the caller's transaction (creating the
 * topic: on PGlite a transaction holds the only connection), so call it before opening one.
 */
export interface InTransactionPublisher {
  readonly database: Database;
  prepareInTransaction(topic: string): Promise<InTransactionPublish>;
}

function checkOptions(options: LocalEventBusOptions, tuning: LocalConsumerTuning): void {
  new OptionProblems()
    .whole('partitions', options.partitions, 1, 256)
    .whole('maxAttempts', options.maxAttempts, 1, MAX_ATTEMPTS_LIMIT)
    .whole('retryBackoffMs', options.retryBackoffMs, 0, 3_600_000)
    .whole('maxRetryBackoffMs', options.maxRetryBackoffMs, 0, 3_600_000)
    .whole('maxMessageBytes', options.maxMessageBytes, 1, 256 * 1024 * 1024)
    .whole('healthTimeoutMs', options.healthTimeoutMs, 1, 600_000)
    .whole('consumer.heartbeatIntervalMs', tuning.heartbeatIntervalMs, 10, 3_600_000)
    .whole('consumer.sessionTimeoutMs', tuning.sessionTimeoutMs, 10, 3_600_000)
    .whole('consumer.pollIntervalMs', tuning.pollIntervalMs, 10, 60_000)
    .whole('consumer.fetchBatchSize', tuning.fetchBatchSize, 1, 10_000)
    .whole('consumer.wakeUpLingerMs', tuning.wakeUpLingerMs, 0, 10_000)
    .whole('consumer.partitionsConsumedConcurrently', tuning.partitionsConsumedConcurrently, 1, 1_000)
    .require(tuning.heartbeatIntervalMs * 2 <= tuning.sessionTimeoutMs, 'consumer.sessionTimeoutMs must be at least twice consumer.heartbeatIntervalMs')
    .throwIfAny('local');
}

/**
 * The message's size in UTF-8, counted without encoding it: a publish of large envelopes (a relay's frames
 * log carries hundreds of KiB per call) would otherwise copy every value once just to measure it.
 */
function messageBytes({ key, value, headers }: EventMessage): number {
  let bytes = Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
  for (const name in headers) bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(headers[name] ?? '', 'utf8');
  return bytes;
}

export class LocalEventBus implements EventBus, InTransactionPublisher {
  readonly adapter = 'local' as const;
  readonly database: Database;
  private readonly logger: BusLogger;
  private readonly prefix: string;
  private readonly maxMessageBytes: number;
  private readonly wakeUps: WakeUpSource;
  private readonly runtime: SubscriptionRuntime;
  /** The running subscriptions (stopped on close, read by `subscriptions()`). */
  private readonly live = new Set<LocalSubscription>();
  private readonly topics = new Map<string, Promise<number>>();
  /** `awaitRecords` calls waiting for a wake-up (each removes itself once settled). */
  private readonly waiters = new Set<(wakeUp: WakeUp | 'closed') => void>();
  private listening?: Promise<void>;
  private closing?: Promise<void>;

  constructor(private readonly options: LocalEventBusOptions) {
    const tuning: LocalConsumerTuning = { ...DEFAULT_LOCAL_CONSUMER_TUNING, ...options.consumer };
    checkOptions(options, tuning);
    this.database = options.database;
    this.logger = options.logger ?? defaultAdapterLogger('local');
    this.prefix = options.topicPrefix ?? '';
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.wakeUps = options.wakeUps ?? inProcessWakeUps(options.database.location);
    this.runtime = {
      database: this.database,
      wakeUps: this.wakeUps,
      logger: this.logger,
      tuning,
      retryBackoffMs: options.retryBackoffMs,
      maxRetryBackoffMs: options.maxRetryBackoffMs ?? 30_000,
      serviceTopic: (storedTopic) => serviceTopicName(this.prefix, storedTopic),
    };
  }

  /** How this bus hears of new messages and group changes (besides polling). */
  get wakeUpKind(): WakeUpSource['kind'] {
    return this.wakeUps.kind;
  }

  async publish(topic: string, envelopes: readonly EventEnvelope[]): Promise<void> {
    this.assertOpen();
    const stored = storedTopicName(this.prefix, topic);
    if (envelopes.length === 0) return;
    const messages = this.checkedMessages(topic, envelopes);
    const partitions = await this.ensureTopic(stored);
    const announced: WakeUp[] = [{ kind: 'messages', topic: stored }];
    const announce = this.wakeUps.announcesInTransaction ? (tx: SqlExecutor) => this.wakeUps.announce(tx, announced) : undefined;
    await this.withDatabase((sql) => appendAtomically(sql, stored, partitions, messages, announce));
    this.wakeUps.committed(announced);
  }

  async prepareInTransaction(topic: string): Promise<InTransactionPublish> {
    this.assertOpen();
    const stored = storedTopicName(this.prefix, topic);
    const partitions = await this.ensureTopic(stored);
    const announced: WakeUp[] = [{ kind: 'messages', topic: stored }];
    return {
      write: async (tx, envelopes) => {
        this.assertOpen();
        if (envelopes.length === 0) return;
        const messages = this.checkedMessages(topic, envelopes);
        try {
          await appendMessages(tx, stored, partitions, messages);
          if (this.wakeUps.announcesInTransaction) await this.wakeUps.announce(tx, announced);
        } catch (error) {
          throw schemaMissingOr(error);
        }
      },
      statementPart: (envelopes, firstParam, condition) => {
        this.assertOpen();
        if (this.wakeUps.announcesInTransaction) return undefined;
        return appendMessagesPart(stored, partitions, this.checkedMessages(topic, envelopes), firstParam, condition);
      },
      committed: () => this.wakeUps.committed(announced),
    };
  }

  async subscribe(options: SubscribeOptions): Promise<LocalSubscription> {
    this.assertOpen();
    const { groupId, topics, handler, batchHandler, start = 'earliest', maxAttempts = this.options.maxAttempts } = options;
    checkSubscribeOptions(options, maxAttempts);
    const stored = subscribedTopicNames(this.prefix, topics);
    // The DLQ siblings too: a dead letter should never wait for a topic to appear.
    const partitionCounts = new Map<string, number>();
    for (const topic of stored.flatMap((name) => [name, deadLetterTopic(name)])) partitionCounts.set(topic, await this.ensureTopic(topic));
    await this.listen();
    this.assertOpen();
    const plan: SubscriptionPlan = { groupId: storedGroupName(this.prefix, groupId), topics: stored, handler, batchHandler, start, maxAttempts, partitionCounts };
    try {
      return await LocalSubscription.start(this.runtime, plan, {
        added: (subscription) => this.live.add(subscription),
        removed: (subscription) => this.live.delete(subscription),
      });
    } catch (error) {
      throw schemaMissingOr(error);
    }
  }

  /**
   * A page of `topic` for a follower in another process: records from each position on (in offset order per
   * partition), the log's identity, partition count and end offsets, read in one snapshot; or the problem of
   * the positions (a partition the topic lacks, an offset past the log's end). Creates the topic as a publish
   * would, so a follower that comes first reads an empty log rather than an error.
   */
  async readFeed(topic: string, positions: readonly FeedPosition[], limits: FeedReadLimits): Promise<{ page: FeedPage } | { problem: FeedReadProblem }> {
    this.assertOpen();
    const stored = storedTopicName(this.prefix, topic);
    const partitions = await this.ensureTopic(stored);
    return this.withDatabase((sql) => sql.transaction((tx) => readFeedPage(tx, stored, partitions, positions, limits)));
  }

  /**
   * Settles when records may have been published on `topic` (a wake-up for it, or a resync), after
   * `timeoutMs`, on `signal`, or when the bus closes, whichever comes first; `cancel` settles it at once.
   * Ask before reading, so that a record published between the read and the wait is not missed.
   */
  awaitRecords(topic: string, timeoutMs: number, signal?: AbortSignal): { arrived: Promise<void>; cancel(): void } {
    const stored = storedTopicName(this.prefix, topic);
    let cancel = () => undefined as void;
    const arrived = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const waiter = (wakeUp: WakeUp | 'closed') => {
        if (wakeUp === 'closed' || wakeUp.kind === 'resync' || (wakeUp.kind === 'messages' && wakeUp.topic === stored)) done();
      };
      const timer = setTimeout(done, timeoutMs);
      cancel = done;
      if (this.closing || signal?.aborted) return done();
      this.waiters.add(waiter);
      signal?.addEventListener('abort', done, { once: true });
      void this.listen();
    });
    return { arrived, cancel: () => cancel() };
  }

  /** How far the copy of a remote log into `topic` got (nothing yet: no remote log). */
  async mirrorPosition(topic: string): Promise<MirrorPosition> {
    this.assertOpen();
    const stored = storedTopicName(this.prefix, topic);
    return this.withDatabase((sql) => readMirrorPosition(sql, stored));
  }

  /**
   * Copies a remote page into `topic` (records keep key, value and headers; each lands on its key's partition)
   * and records how far the copy got, in one transaction; 'moved' when another follower on this database
   * copied from that position first (nothing written). Wakes the topic's consumers.
   */
  async appendMirrored(topic: string, page: MirroredPage): Promise<'appended' | 'moved'> {
    this.assertOpen();
    const stored = storedTopicName(this.prefix, topic);
    const partitions = await this.ensureTopic(stored);
    const announced: WakeUp[] = [{ kind: 'messages', topic: stored }];
    const outcome = await this.withDatabase((sql) =>
      sql.transaction(async (tx) => {
        const written = await appendMirroredPage(tx, stored, partitions, page);
        if (written === 'appended' && page.records.length > 0 && this.wakeUps.announcesInTransaction) await this.wakeUps.announce(tx, announced);
        return written;
      }),
    );
    if (outcome === 'appended' && page.records.length > 0) this.wakeUps.committed(announced);
    return outcome;
  }

  subscriptions(): readonly Subscription[] {
    return [...this.live];
  }

  async health(): Promise<BusHealth> {
    if (this.closing) return { adapter: 'local', ready: false, reason: 'BUS_CLOSED' };
    try {
      const [row] = await within(
        this.database.withConnection((sql) =>
          sql.query<{ present: boolean }>("SELECT to_regclass('bus_messages') IS NOT NULL AND to_regclass('bus_partition_leases') IS NOT NULL AS present"),
        ),
        this.options.healthTimeoutMs ?? 5_000,
      );
      return row?.present ? { adapter: 'local', ready: true } : { adapter: 'local', ready: false, reason: 'SCHEMA_MISSING' };
    } catch {
      return { adapter: 'local', ready: false, reason: 'DATABASE_UNREACHABLE' };
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const waiter of [...this.waiters]) waiter('closed');
      await Promise.allSettled([...this.live].map((subscription) => subscription.stop()));
      await this.listening;
      await this.wakeUps.close();
    })();
    return this.closing;
  }

  /** The messages of a publish call, each within the size limit (else `MESSAGE_TOO_LARGE`, nothing published). */
  private checkedMessages(topic: string, envelopes: readonly EventEnvelope[]): EventMessage[] {
    const messages = publishableMessages(topic, envelopes);
    messages.forEach((message, index) => {
      const bytes = messageBytes(message);
      if (bytes > this.maxMessageBytes) {
        throw new BusError(
          'MESSAGE_TOO_LARGE',
          `Envelope ${index + 1} of ${envelopes.length} for ${topic} is ${bytes} bytes, over the bus limit of ${this.maxMessageBytes}. ` +
            'Nothing was published; keep large payloads out of events (store them and publish a reference).',
        );
      }
    });
    return messages;
  }

  private assertOpen(): void {
    if (this.closing) throw new BusError('BUS_CLOSED', 'The event bus is closed.');
  }

  /** The topic's partition count, creating the topic on first use; asked of the database once per bus. */
  private ensureTopic(topic: string): Promise<number> {
    let known = this.topics.get(topic);
    if (!known) {
      const creating = this.withDatabase((sql) => ensureTopic(sql, topic, this.options.partitions));
      known = creating.then((partitions) => {
        if (partitions !== this.options.partitions) {
          this.logger.log('info', 'local bus: topic keeps the partition count it was created with', { topic, partitions, configured: this.options.partitions });
        }
        return partitions;
      });
      this.topics.set(topic, known);
      known.catch(() => this.topics.delete(topic));
    }
    return known;
  }

  /** Starts hearing wake-ups, once, before the first subscription joins. */
  private listen(): Promise<void> {
    this.listening ??= this.wakeUps
      .start((wakeUp) => {
        for (const subscription of this.live) subscription.wake(wakeUp);
        for (const waiter of [...this.waiters]) waiter(wakeUp);
      })
      .catch((error: unknown) => {
        this.logger.log('warn', 'local bus: cannot listen for wake-ups; consumers poll instead', { wakeUps: this.wakeUps.kind, error: describeError(error) });
      });
    return this.listening;
  }

  private async withDatabase<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T> {
    try {
      return await this.database.withConnection(work);
    } catch (error) {
      throw schemaMissingOr(error);
    }
  }
}
