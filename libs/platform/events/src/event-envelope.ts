/**
 * The event envelope every Trustmesh event travels in (ARCHITECTURE.md "Events"): identity, stream
 * position, causality and tracing around a versioned payload. Pure: it runs wherever events are read.
 */
import { uuidv7 } from './uuidv7';

export interface EventEnvelope<TData = unknown> {
  /** UUIDv7: unique, and roughly ordered by creation time. */
  eventId: string;
  /** Past tense, PascalCase: `DevicePaired`, `CardVersionPublished`. */
  eventType: string;
  /** Version of `data`'s shape for this event type, from 1; consumers upcast older ones on read. */
  schemaVersion: number;
  /** The aggregate or workspace id; also the Kafka key, so one stream stays on one partition. */
  streamId: string;
  /** Position in the stream, from 1 for its first event. */
  streamVersion: number;
  /** RFC 3339 with an offset. */
  occurredAt: string;
  /** Shared by every event caused, directly or not, by one request. */
  correlationId: string;
  /** The event (or command) that caused this one, if any. */
  causationId: string | null;
  /** W3C trace context of the operation that produced the event, if traced. */
  traceparent: string | null;
  /** `<service>@<version>` of the writer. */
  producer: string;
  data: TData;
}

export const ENVELOPE_ISSUE_CODES = [
  'ENVELOPE_NOT_OBJECT',
  'ENVELOPE_FIELD_MISSING',
  'ENVELOPE_FIELD_INVALID',
  'ENVELOPE_FIELD_UNKNOWN',
] as const;
export type EnvelopeIssueCode = (typeof ENVELOPE_ISSUE_CODES)[number];

export interface EnvelopeIssue {
  code: EnvelopeIssueCode;
  /** The envelope field at fault. */
  field: string;
  message: string;
}

export type EnvelopeVerdict<T> = { ok: true; envelope: EventEnvelope<T> } | { ok: false; issues: EnvelopeIssue[] };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const EVENT_TYPE = /^[A-Z][A-Za-z0-9]{0,127}$/;
// version 00, 32-hex trace id, 16-hex parent id, 2-hex flags (W3C Trace Context §3.2).
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const MAX_ID_LENGTH = 200;

type FieldCheck = (value: unknown) => string | undefined;
const text = (max: number, pattern?: RegExp, what = 'text'): FieldCheck => (value) =>
  typeof value !== 'string' || value.length === 0 || value.length > max || (pattern && !pattern.test(value))
    ? `must be ${what}`
    : undefined;
const nullable = (check: FieldCheck): FieldCheck => (value) => (value === null ? undefined : check(value));
const positiveInteger: FieldCheck = (value) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? undefined : 'must be an integer ≥ 1';
const isDateTime: FieldCheck = (value) =>
  typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : 'must be an RFC 3339 date-time with an offset';

const FIELDS: Record<Exclude<keyof EventEnvelope, 'data'>, FieldCheck> = {
  eventId: text(36, UUID, 'a UUID'),
  eventType: text(128, EVENT_TYPE, 'a PascalCase event name'),
  schemaVersion: positiveInteger,
  streamId: text(MAX_ID_LENGTH, undefined, `a non-empty id of at most ${MAX_ID_LENGTH} characters`),
  streamVersion: positiveInteger,
  occurredAt: isDateTime,
  correlationId: text(MAX_ID_LENGTH, undefined, `a non-empty id of at most ${MAX_ID_LENGTH} characters`),
  causationId: nullable(text(MAX_ID_LENGTH, undefined, `null or an id of at most ${MAX_ID_LENGTH} characters`)),
  traceparent: nullable(text(55, TRACEPARENT, 'null or a W3C traceparent')),
  producer: text(MAX_ID_LENGTH, undefined, 'a non-empty producer name'),
};
const KNOWN = new Set([...Object.keys(FIELDS), 'data']);
// Resolved once: every publish validates each envelope, so the per-call Object.entries showed in the publish benchmark.
const FIELD_CHECKS = Object.entries(FIELDS);

/** Checks that `value` is a well-formed envelope; `data` is checked by the event type's own schema. */
export function validateEnvelope<T = unknown>(value: unknown): EnvelopeVerdict<T> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, issues: [{ code: 'ENVELOPE_NOT_OBJECT', field: '', message: 'An event envelope must be a JSON object.' }] };
  }
  const record = value as Record<string, unknown>;
  const issues: EnvelopeIssue[] = [];
  for (const [field, check] of FIELD_CHECKS) {
    if (!(field in record)) {
      issues.push({ code: 'ENVELOPE_FIELD_MISSING', field, message: `\`${field}\` is required.` });
      continue;
    }
    const problem = check(record[field]);
    if (problem) issues.push({ code: 'ENVELOPE_FIELD_INVALID', field, message: `\`${field}\` ${problem}.` });
  }
  if (!('data' in record) || record['data'] === undefined) {
    issues.push({ code: 'ENVELOPE_FIELD_MISSING', field: 'data', message: '`data` is required.' });
  }
  for (const field of Object.keys(record)) {
    if (!KNOWN.has(field)) issues.push({ code: 'ENVELOPE_FIELD_UNKNOWN', field, message: `\`${field}\` is not an envelope field.` });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, envelope: record as unknown as EventEnvelope<T> };
}

export interface NewEvent<TData = unknown> {
  eventType: string;
  schemaVersion?: number;
  data: TData;
}

export interface EnvelopeContext {
  streamId: string;
  streamVersion: number;
  correlationId?: string;
  causationId?: string | null;
  traceparent?: string | null;
  producer: string;
  /** Clock, for tests and replays. */
  now?: () => Date;
}

/** Wraps a new event in an envelope with a fresh UUIDv7; without a correlation id, it starts one. */
export function createEnvelope<TData>(event: NewEvent<TData>, context: EnvelopeContext): EventEnvelope<TData> {
  const eventId = uuidv7();
  return {
    eventId,
    eventType: event.eventType,
    schemaVersion: event.schemaVersion ?? 1,
    streamId: context.streamId,
    streamVersion: context.streamVersion,
    occurredAt: (context.now ?? (() => new Date()))().toISOString(),
    correlationId: context.correlationId ?? eventId,
    causationId: context.causationId ?? null,
    traceparent: context.traceparent ?? null,
    producer: context.producer,
    data: event.data,
  };
}
