/**
 * The event bus port: what services need from a log of topics, whichever adapter runs behind it
 * (`kafka` with kafkajs, or `local` over the service's own database). Business code depends on this
 * file only; the adapter is chosen by configuration at startup.
 *
 * Semantics both adapters keep:
 * - services and handlers name topics as `<context>.<stream>.v<major>`; the adapter adds the configured
 *   topic prefix (`TRUSTMESH_TOPIC_PREFIX`) to every name in the log, its `.dlq` siblings included, and
 *   takes it off again in what it hands back (`BusRecord.topic`, `PartitionLag.topic`); only a dead
 *   letter's origin header names the topic as stored, beside the stored partition and offset;
 * - a topic is split into partitions; the partition of a message is a function of its key (the stream
 *   id), so one stream is totally ordered and is consumed in order;
 * - `publish` resolves once every message is durably accepted, in the order given per key;
 * - delivery is at least once: a consumer group commits a message's offset only after its handler
 *   succeeded, so after a crash or restart it resumes from its last committed offset;
 * - a handler that keeps failing gets `maxAttempts` tries, then the message goes to `<topic>.dlq` with
 *   its origin and the failure code, its offset is committed, and the partition moves on. The DLQ is for
 *   poison messages (the message is bad);
 * - a handler that fails TRANSIENTLY (it throws an error marked `transient: true`, see
 *   `TransientHandlerError`: the world is bad, e.g. its database is unreachable) uses up no try: the
 *   partition waits on that message and tries it again, with the same capped, doubling backoff, for as
 *   long as it takes or until the subscription stops (which leaves it uncommitted, for the next member).
 *   The member keeps its group membership meanwhile; `Subscription.retrying()` and the growing lag show
 *   the partition is stuck, and the adapter logs why (the failure's code, at most once per interval).
 */
import type { EventEnvelope } from '@trustmesh/platform-events';

/** A message as a consumer sees it. */
export interface BusRecord {
  topic: string;
  partition: number;
  /** Offset within the partition, as a decimal string (Kafka offsets are 64-bit). */
  offset: string;
  /**
   * Which log `offset` counts in: the adapter, its cluster (kafka: the cluster id; local: the topic's
   * creation), and the topic as stored (with its prefix), e.g. `kafka:<clusterId>:<topic>` or
   * `local:<topic>@<created>`. Offsets compare only between records of one log: a recreated topic, a
   * restarted mock cluster, another prefix or the other adapter is a new log whose offsets start again,
   * so whoever keeps offsets (a projection's checkpoint) must keep this beside them.
   */
  log: string;
  key: string;
  envelope: EventEnvelope;
  /**
   * The message's headers as text: the envelope's routing headers (`EVENT_HEADERS` of the events
   * library: event type, schema version, correlation id, traceparent), plus whatever else a producer
   * put there. A header Kafka carries more than once gives its first value.
   */
  headers: Readonly<Record<string, string>>;
  /**
   * 1 for the first delivery to this handler, counting up on retries that count toward `maxAttempts`;
   * a retry after a transient failure keeps the number.
   */
  attempt: number;
}

/**
 * Handles one record; resolves once it is done. A rejection is a failed try (toward `maxAttempts`, then
 * the DLQ), unless the error is transient (`isTransientFailure`): then the same record is tried again
 * without counting, until it succeeds or the subscription stops.
 */
export type RecordHandler = (record: BusRecord) => Promise<void>;

/**
 * Handles a run of consecutive records of ONE partition, in offset order, all or nothing: a speed-up
 * for the path where nothing fails (one transaction, one commit per run instead of one per record).
 * - Resolved: every record of the run is done, and the adapter commits past the last one.
 * - Rejected, for any reason (transient or not): the adapter delivers the same records one by one to
 *   the subscription's `handler`, with the usual tries, transient waits and dead letters. So it must
 *   leave nothing behind when it rejects (write in one transaction), and a rejection costs no try.
 * It gets first deliveries only (`attempt` 1), never a value that is not a valid envelope. An adapter may
 * deliver one record at a time and never call it (the kafka adapter does; the local adapter calls it with
 * the records of each read from the partition).
 */
export type BatchHandler = (records: readonly BusRecord[]) => Promise<void>;

/**
 * What a handler throws when it failed for a reason outside the message (its database, a service it
 * needs, is unreachable): the bus then keeps the message and its partition waiting rather than spending
 * tries on it and dead-lettering it. `code` is a stable code for the logs (`[A-Z][A-Z0-9_]*`); the
 * message and `cause` never reach a log line or a header.
 *
 * Any error object with an own or inherited `transient === true` counts the same, so libraries can mark
 * their errors without importing this class.
 */
export class TransientHandlerError extends Error {
  readonly transient = true;
  readonly code: string;

  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransientHandlerError';
    this.code = options.code ?? 'HANDLER_TRANSIENT_FAILURE';
  }
}

/** True when a handler's failure is marked transient (`transient === true`): it must not use up a try. */
export function isTransientFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { transient?: unknown }).transient === true;
}

export interface SubscribeOptions {
  /**
   * Consumer group: members share the partitions, and the group keeps the committed offsets. The adapter
   * adds the topic prefix to it in the log, as to topics, so deployments under different prefixes never
   * share a group.
   */
  groupId: string;
  topics: readonly string[];
  handler: RecordHandler;
  /** Optional: handles runs of a partition's records in one go, falling back to `handler` (see `BatchHandler`). */
  batchHandler?: BatchHandler;
  /** Where a group with no committed offset starts. Defaults to the beginning. */
  start?: 'earliest' | 'latest';
  /** Tries per message before it goes to the DLQ; defaults to the bus configuration's. */
  maxAttempts?: number;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** Next offset the group will read. */
  committedOffset: string;
  /** Offset the next published message will get. */
  endOffset: string;
  lag: number;
}

/** A partition of this member held up by a message whose handler keeps failing transiently. */
export interface RetryingPartition {
  topic: string;
  partition: number;
  /** The offset of the message the partition waits on. */
  offset: string;
  /** Transient failures of that message in a row so far. */
  transientFailures: number;
  /** When its first transient failure in a row happened (ISO 8601). */
  since: string;
  /** The stable code of the last failure (`failureCode`), never its message. */
  code: string;
}

export interface Subscription {
  readonly groupId: string;
  /** Stops consuming after the message in hand, commits, and leaves the group. */
  stop(): Promise<void>;
  /** How far the group is behind each partition it consumes. */
  lag(): Promise<PartitionLag[]>;
  /**
   * The partitions this member holds that wait on a transiently failing message right now (no I/O, so a
   * health check can ask even while the handler's database is away); empty when none is stuck.
   */
  retrying(): RetryingPartition[];
}

export interface BusHealth {
  adapter: 'kafka' | 'local';
  ready: boolean;
  /** A short, stable reason when not ready (never internal error text). */
  reason?: string;
  /**
   * Stable codes of what works, but with weaker guarantees than it should, while ready: the Kafka bus's
   * `PRODUCER_NOT_IDEMPOTENT` (a send retried after a lost response may be written twice) until it gets
   * an idempotent producer again. Absent when there is none.
   */
  degraded?: string[];
}

export interface EventBus {
  readonly adapter: 'kafka' | 'local';
  /** Publishes envelopes to a topic, keyed by their stream id; resolves when all are durably accepted. */
  publish(topic: string, envelopes: readonly EventEnvelope[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  health(): Promise<BusHealth>;
  /** The subscriptions of this process that are running now (what its consumer-lag metric reads). */
  subscriptions(): readonly Subscription[];
  /** Stops every subscription (consumers leave their groups) and releases connections. */
  close(): Promise<void>;
}

/** The DI token under which an app provides its `EventBus`. */
export const EVENT_BUS = Symbol.for('trustmesh.platform.EventBus');

const DEAD_LETTER_SUFFIX = '.dlq';

/** Topic names follow `<context>.<stream>.v<major>`; each has a `.dlq` sibling. */
export function deadLetterTopic(topic: string): string {
  return `${topic}${DEAD_LETTER_SUFFIX}`;
}

/** Whether a topic (as stored or as services name it) is some topic's `.dlq` sibling. */
export function isDeadLetterTopic(topic: string): boolean {
  return topic.endsWith(DEAD_LETTER_SUFFIX);
}

/** Headers a dead-lettered message carries besides the original ones. */
export const DLQ_HEADERS = {
  originTopic: 'dlq-origin-topic',
  originPartition: 'dlq-origin-partition',
  originOffset: 'dlq-origin-offset',
  attempts: 'dlq-attempts',
  /** A stable error code (`HANDLER_FAILED`, `ENVELOPE_INVALID`, …), never the error's message. */
  errorCode: 'dlq-error-code',
} as const;
