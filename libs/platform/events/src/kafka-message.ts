/**
 * How an envelope travels as a Kafka message: key = stream id (one stream, one partition, in order),
 * value = the envelope as JSON, and the routing facts a consumer may need before parsing the value
 * repeated as headers. Plain data, so both bus adapters and tools share it.
 */
import { validateEnvelope, type EnvelopeIssue, type EventEnvelope } from './event-envelope';

export const EVENT_HEADERS = {
  eventType: 'event-type',
  schemaVersion: 'schema-version',
  correlationId: 'correlation-id',
  traceparent: 'traceparent',
} as const;

export interface EventMessage {
  key: string;
  value: string;
  headers: Record<string, string>;
}

export function toEventMessage(envelope: EventEnvelope): EventMessage {
  const headers: Record<string, string> = {
    [EVENT_HEADERS.eventType]: envelope.eventType,
    [EVENT_HEADERS.schemaVersion]: String(envelope.schemaVersion),
    [EVENT_HEADERS.correlationId]: envelope.correlationId,
  };
  if (envelope.traceparent) headers[EVENT_HEADERS.traceparent] = envelope.traceparent;
  return { key: envelope.streamId, value: JSON.stringify(envelope), headers };
}

/** A header value as Kafka clients hand it over: bytes or text, a list when the header came more than once. */
export type RawHeaderValue = Uint8Array | string | ReadonlyArray<Uint8Array | string> | undefined;

const lenientUtf8 = new TextDecoder('utf-8');

/**
 * A message's headers as text, the way the bus hands them to consumers: bytes decoded as UTF-8 (a byte
 * that is not UTF-8 becomes U+FFFD), a repeated header's first value, a header without a value left out.
 */
export function headersAsText(headers: Readonly<Record<string, RawHeaderValue>> | undefined): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? (value as ReadonlyArray<Uint8Array | string>)[0] : (value as Uint8Array | string | undefined);
    if (first !== undefined) text[name] = typeof first === 'string' ? first : lenientUtf8.decode(first);
  }
  return text;
}

export type MessageVerdict = { ok: true; envelope: EventEnvelope } | { ok: false; issues: EnvelopeIssue[] };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads an envelope back from a message value (bytes or text); a bad message yields issues, never a throw. */
export function fromEventMessage(value: Uint8Array | string | null | undefined): MessageVerdict {
  if (value === null || value === undefined) {
    return { ok: false, issues: [{ code: 'ENVELOPE_NOT_OBJECT', field: '', message: 'The message has no value.' }] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof value === 'string' ? value : utf8.decode(value));
  } catch {
    return { ok: false, issues: [{ code: 'ENVELOPE_NOT_OBJECT', field: '', message: 'The message value is not UTF-8 JSON.' }] };
  }
  const verdict = validateEnvelope(parsed);
  return verdict.ok ? { ok: true, envelope: verdict.envelope } : verdict;
}
