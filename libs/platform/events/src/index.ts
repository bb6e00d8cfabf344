/**
 * @trustmesh/platform-events: the event envelope, its validation and upcasting, UUIDv7 ids, and the
 * mapping of envelopes to bus messages.
 */
export {
  createEnvelope,
  validateEnvelope,
  ENVELOPE_ISSUE_CODES,
  type EventEnvelope,
  type EnvelopeIssue,
  type EnvelopeIssueCode,
  type EnvelopeVerdict,
  type EnvelopeContext,
  type NewEvent,
} from './event-envelope';
export { UpcasterRegistry, UpcastError, type Upcaster } from './upcasting';
export { uuidv7, uuidv7Millis } from './uuidv7';
export { toEventMessage, fromEventMessage, headersAsText, EVENT_HEADERS, type EventMessage, type MessageVerdict, type RawHeaderValue } from './kafka-message';
