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
 *   its origin and the failure code, its offset is committed, and the partition moves on.
 */
import type { EventEnvelope } from '@trustmesh/platform-events';

/** A message as a consumer sees it. */
export interface BusRecord {
  topic: string;
  partition: number;
  /** Offset within the partition, as a decimal string (Kafka offsets are 64-bit). */
  offset: string;
  key: string;
  envelope: EventEnvelope;
  /**
   * The message's headers as text: the envelope's routing headers (`EVENT_HEADERS` of the events
   * library: event type, schema version, correlation id, traceparent), plus whatever else a producer
   * put there. A header Kafka carries more than once gives its first value.
   */
  headers: Readonly<Record<string, string>>;
  /** 1 for the first delivery to this handler, counting up on retries. */
  attempt: number;
}

export type RecordHandler = (record: BusRecord) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: members share the partitions, and the group keeps the committed offsets. */
  groupId: string;
  topics: readonly string[];
  handler: RecordHandler;
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

export interface Subscription {
  readonly groupId: string;
  /** Stops consuming after the message in hand, commits, and leaves the group. */
  stop(): Promise<void>;
  /** How far the group is behind each partition it consumes. */
  lag(): Promise<PartitionLag[]>;
}

export interface BusHealth {
  adapter: 'kafka' | 'local';
  ready: boolean;
  /** A short, stable reason when not ready (never internal error text). */
  reason?: string;
}

export interface EventBus {
  readonly adapter: 'kafka' | 'local';
  /** Publishes envelopes to a topic, keyed by their stream id; resolves when all are durably accepted. */
  publish(topic: string, envelopes: readonly EventEnvelope[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  health(): Promise<BusHealth>;
  /** Stops every subscription (consumers leave their groups) and releases connections. */
  close(): Promise<void>;
}

/** The DI token under which an app provides its `EventBus`. */
export const EVENT_BUS = Symbol.for('trustmesh.platform.EventBus');

/** Topic names follow `<context>.<stream>.v<major>`; each has a `.dlq` sibling. */
export function deadLetterTopic(topic: string): string {
  return `${topic}.dlq`;
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
