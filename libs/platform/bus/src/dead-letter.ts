/**
 * What both adapters put on a dead letter: the original message's headers plus the port's DLQ headers
 * (origin topic, partition and offset, tries, and a stable failure code). Never the error's text: it
 * may quote the event's data, and a DLQ is read by people and tools that should not see it.
 */
import { DLQ_HEADERS } from './event-bus.port';

export const DEAD_LETTER_CODES = {
  /** The handler threw something without a stable code of its own. */
  handlerFailed: 'HANDLER_FAILED',
  /** The message value is not a valid event envelope: no try can fix it, so it gets none. */
  envelopeInvalid: 'ENVELOPE_INVALID',
} as const;

/** A code a handler can set on what it throws (`UpcastError`'s, for example). */
const STABLE_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/** The failure code of what a handler threw: its own stable `code`, else `HANDLER_FAILED`. */
export function failureCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && STABLE_CODE.test(code) ? code : DEAD_LETTER_CODES.handlerFailed;
}

export interface DeadLetterOrigin {
  /** The topic as stored (with the configured prefix). */
  topic: string;
  partition: number;
  offset: string;
  /** Handler tries made (0 for a message no try could fix). */
  attempts: number;
  code: string;
}

/** The headers of a dead letter: the original ones, then the DLQ headers (which win on a clash). */
export function deadLetterHeaders(original: Readonly<Record<string, string>>, origin: DeadLetterOrigin): Record<string, string> {
  return {
    ...original,
    [DLQ_HEADERS.originTopic]: origin.topic,
    [DLQ_HEADERS.originPartition]: String(origin.partition),
    [DLQ_HEADERS.originOffset]: origin.offset,
    [DLQ_HEADERS.attempts]: String(origin.attempts),
    [DLQ_HEADERS.errorCode]: origin.code,
  };
}
