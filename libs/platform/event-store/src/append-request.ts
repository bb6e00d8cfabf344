/**
 * Checking an append before it reaches the database: the stream id, the expected version, each event
 * (as a new event wrapped in an envelope here, or as a whole envelope made elsewhere), the size of its
 * data, and the outbox topic. Pure: no I/O, so every refusal is tested without a database.
 */
import { createEnvelope, validateEnvelope, type EventEnvelope, type NewEvent } from '@trustmesh/platform-events';
import { activeTraceparent } from '@trustmesh/platform-tracing';

import { EventStoreError } from './event-store.errors';

/**
 * What the caller believes the stream's version is: a number (0 = no stream yet), `'no-stream'` (same as
 * 0), or `'any'` (no check; with whole envelopes, their own versions are the expectation).
 */
export type ExpectedVersion = number | 'no-stream' | 'any';

export interface AppendOptions {
  /**
   * The topic every appended event is published to through the outbox (one outbox row per event, in the
   * same transaction). `null`: no outbox rows. Omitted: the store's `defaultTopic`.
   */
  topic?: string | null;
  /** For new events (envelopes carry their own): shared by everything one request caused. */
  correlationId?: string;
  causationId?: string | null;
  /** For new events: the W3C trace context they were caused in; defaults to the active span's (null when none). */
  traceparent?: string | null;
  /** For new events: `<service>@<version>`; defaults to the store's `producer`. */
  producer?: string;
}

export interface AppendSettings {
  maxEventDataBytes: number;
  maxEventsPerAppend: number;
  producer: string | undefined;
  defaultTopic: string | null | undefined;
  now: () => Date;
}

export interface PreparedAppend {
  streamId: string;
  /** The version the stream must be at, or `'any'`. */
  expected: number | 'any';
  /** Envelopes with stream versions counted from 1; `placeAt` moves them after the actual version. */
  envelopes: EventEnvelope[];
  topic: string | null;
}

const MAX_ID_LENGTH = 200;
// Kafka's legal topic names: at most 249 of [a-zA-Z0-9._-].
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

export function checkStreamId(streamId: unknown): string {
  if (typeof streamId !== 'string' || streamId.length === 0 || streamId.length > MAX_ID_LENGTH || streamId.trim() !== streamId) {
    throw new EventStoreError('STREAM_ID_INVALID', `A stream id is 1–${MAX_ID_LENGTH} characters with no surrounding spaces.`);
  }
  return streamId;
}

function isEnvelope(event: NewEvent | EventEnvelope): event is EventEnvelope {
  return typeof event === 'object' && event !== null && 'eventId' in event;
}

/** `data` as it will be stored and read back: JSON-normalised, within the byte limit, storable in jsonb. */
function storableData(data: unknown, index: number, limit: number): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch {
    json = undefined;
  }
  if (json === undefined) {
    throw new EventStoreError('EVENT_DATA_INVALID', `Event ${index}: \`data\` must be JSON-serialisable (no cycles, BigInts or undefined).`, {
      eventIndex: index,
    });
  }
  // JSON.stringify escapes U+0000 as \u0000, which Postgres' jsonb refuses.
  if (json.includes('\\u0000')) {
    throw new EventStoreError('EVENT_DATA_INVALID', `Event ${index}: \`data\` contains a NUL character, which the store cannot keep.`, {
      eventIndex: index,
    });
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > limit) {
    throw new EventStoreError('EVENT_DATA_TOO_LARGE', `Event ${index}: \`data\` is ${bytes} bytes of JSON; the limit is ${limit}.`, { eventIndex: index });
  }
  return JSON.parse(json) as unknown;
}

function checkEnvelope(envelope: EventEnvelope, index: number): void {
  const verdict = validateEnvelope(envelope);
  if (!verdict.ok) {
    const fields = verdict.issues.map((issue) => issue.field || '(envelope)').join(', ');
    throw new EventStoreError('EVENT_INVALID', `Event ${index} is not a valid envelope (${fields}).`, { issues: verdict.issues, eventIndex: index });
  }
}

export function prepareAppend(
  streamIdInput: string,
  expectedVersion: ExpectedVersion,
  events: readonly (NewEvent | EventEnvelope)[],
  options: AppendOptions,
  settings: AppendSettings,
): PreparedAppend {
  const streamId = checkStreamId(streamIdInput);
  let expected: number | 'any';
  if (expectedVersion === 'no-stream') expected = 0;
  else if (expectedVersion === 'any') expected = 'any';
  else if (typeof expectedVersion === 'number' && Number.isSafeInteger(expectedVersion) && expectedVersion >= 0) expected = expectedVersion;
  else throw new EventStoreError('EXPECTED_VERSION_INVALID', "The expected version is a whole number ≥ 0, 'no-stream' or 'any'.");

  if (!Array.isArray(events) || events.length === 0) throw new EventStoreError('EVENTS_EMPTY', 'An append needs at least one event.');
  if (events.length > settings.maxEventsPerAppend) {
    throw new EventStoreError('TOO_MANY_EVENTS', `An append takes at most ${settings.maxEventsPerAppend} events (got ${events.length}); split it.`);
  }

  const topic = options.topic !== undefined ? options.topic : settings.defaultTopic;
  if (topic === undefined) {
    throw new EventStoreError('TOPIC_MISSING', 'Say which topic the events are published to (`topic`), or `topic: null` for none.');
  }
  if (topic !== null && (typeof topic !== 'string' || !TOPIC.test(topic))) {
    throw new EventStoreError('TOPIC_INVALID', 'A topic is 1–249 letters, digits, dots, dashes or underscores.');
  }

  const wholeEnvelopes = isEnvelope(events[0] as NewEvent | EventEnvelope);
  const envelopes = events.map((event, index): EventEnvelope => {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      throw new EventStoreError('EVENT_INVALID', `Event ${index} is not an object.`, { eventIndex: index });
    }
    if (isEnvelope(event) !== wholeEnvelopes) {
      throw new EventStoreError('EVENT_INVALID', `Event ${index}: one append takes either new events or whole envelopes, not both.`, {
        eventIndex: index,
      });
    }
    if (isEnvelope(event)) {
      checkEnvelope(event, index);
      if (event.streamId !== streamId) {
        throw new EventStoreError('EVENT_INVALID', `Event ${index} belongs to stream ${JSON.stringify(event.streamId)}, not ${JSON.stringify(streamId)}.`, {
          eventIndex: index,
        });
      }
      // Stored timestamps have millisecond precision in UTC; the envelope says so from the start.
      return { ...event, occurredAt: new Date(event.occurredAt).toISOString(), data: storableData(event.data, index, settings.maxEventDataBytes) };
    }
    const producer = options.producer ?? settings.producer;
    if (producer === undefined) throw new EventStoreError('PRODUCER_MISSING', 'New events need a producer (`producer` option or store setting).');
    const envelope = createEnvelope(
      { eventType: event.eventType, schemaVersion: event.schemaVersion, data: storableData(event.data, index, settings.maxEventDataBytes) },
      {
        streamId,
        streamVersion: index + 1,
        correlationId: options.correlationId,
        causationId: options.causationId,
        // Unless the caller says otherwise, the operation appending (a traced gRPC call, frame or event) caused the event.
        traceparent: options.traceparent === undefined ? activeTraceparent() : options.traceparent,
        producer,
        now: settings.now,
      },
    );
    checkEnvelope(envelope, index);
    return envelope;
  });

  if (wholeEnvelopes) {
    const first = (envelopes[0] as EventEnvelope).streamVersion;
    envelopes.forEach((envelope, index) => {
      if (envelope.streamVersion !== first + index) {
        throw new EventStoreError('EVENT_VERSION_MISMATCH', `Event ${index} has stream version ${envelope.streamVersion}; expected ${first + index}.`, {
          eventIndex: index,
        });
      }
    });
    if (expected !== 'any' && first !== expected + 1) {
      throw new EventStoreError('EVENT_VERSION_MISMATCH', `The first envelope has stream version ${first}, but the expected version ${expected} makes it ${expected + 1}.`, {
        eventIndex: 0,
      });
    }
    // Envelopes made elsewhere carry their versions: those are what the stream must be at.
    expected = first - 1;
  }
  const ids = new Set(envelopes.map((envelope) => envelope.eventId));
  if (ids.size !== envelopes.length) throw new EventStoreError('DUPLICATE_EVENT_ID', 'The same event id appears twice in one append.');
  return { streamId, expected, envelopes: envelopes.map((envelope, index) => ({ ...envelope, streamVersion: index + 1 })), topic };
}

/** The prepared envelopes, numbered after `currentVersion`. */
export function placeAt(prepared: PreparedAppend, currentVersion: number): EventEnvelope[] {
  return prepared.envelopes.map((envelope, index) => ({ ...envelope, streamVersion: currentVersion + index + 1 }));
}
