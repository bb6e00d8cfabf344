/**
 * What the event store refuses, as values with stable codes. Messages say what to change; they never carry
 * SQL or driver text (the original error, when there is one, is the non-enumerable `cause`, for logs).
 */
import type { EnvelopeIssue } from '@trustmesh/platform-events';

export const EVENT_STORE_ERROR_CODES = [
  'STREAM_ID_INVALID',
  'EXPECTED_VERSION_INVALID',
  'EVENTS_EMPTY',
  'TOO_MANY_EVENTS',
  /** An event or envelope is malformed; `issues` says which field. */
  'EVENT_INVALID',
  /** `data` is not JSON (a cycle, a BigInt, `undefined`) or holds a NUL character, which jsonb cannot store. */
  'EVENT_DATA_INVALID',
  /** `data` serialises to more UTF-8 bytes than the store's limit. */
  'EVENT_DATA_TOO_LARGE',
  /** Given envelopes' stream versions do not follow the expected version (or each other). */
  'EVENT_VERSION_MISMATCH',
  /** An event id is already in the store. */
  'DUPLICATE_EVENT_ID',
  /** Another writer appended first: the stream is not at the expected version. */
  'STREAM_VERSION_CONFLICT',
  /** No topic for the outbox: pass `topic` (or `null` for no outbox row), or configure `defaultTopic`. */
  'TOPIC_MISSING',
  'TOPIC_INVALID',
  /** A new event needs a producer: pass `producer`, or configure the store's. */
  'PRODUCER_MISSING',
  'READ_OPTIONS_INVALID',
  'OUTBOX_OPTIONS_INVALID',
  /**
   * This publisher no longer holds the outbox lease (it ran out while the bus took its time and another
   * publisher took it, or it was given back): nothing was marked published; claim again.
   */
  'OUTBOX_LEASE_LOST',
  /** The store was closed. */
  'STORE_CLOSED',
  /** Too many appends queued for the store's transaction time limit; retry later. */
  'STORE_BUSY',
  /** The database failed; the cause is logged by the caller, not shown to peers. */
  'STORE_FAILED',
] as const;
export type EventStoreErrorCode = (typeof EVENT_STORE_ERROR_CODES)[number];

export class EventStoreError extends Error {
  constructor(
    readonly code: EventStoreErrorCode,
    message: string,
    options?: { cause?: unknown; issues?: readonly EnvelopeIssue[]; eventIndex?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EventStoreError';
    if (options?.issues) this.issues = options.issues;
    if (options?.eventIndex !== undefined) this.eventIndex = options.eventIndex;
  }

  /** For `EVENT_INVALID`: what is wrong, field by field. */
  readonly issues?: readonly EnvelopeIssue[];
  /** The index, in the appended batch, of the event at fault. */
  readonly eventIndex?: number;
}

/** The stream moved on: reload it, decide again, and append with the version it has now. */
export class ConcurrencyError extends EventStoreError {
  override readonly code = 'STREAM_VERSION_CONFLICT' as const;

  constructor(
    readonly streamId: string,
    /** What the caller expected (`'no-stream'` is 0). */
    readonly expectedVersion: number,
    /** The stream's version when the append was refused. */
    readonly actualVersion: number,
  ) {
    super(
      'STREAM_VERSION_CONFLICT',
      `Stream ${JSON.stringify(streamId)} is at version ${actualVersion}, not ${expectedVersion}: another writer appended first.`,
    );
    this.name = 'ConcurrencyError';
  }
}
