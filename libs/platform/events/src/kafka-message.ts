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
