/**
 * What both adapters check before a publish reaches the log: every envelope of the call is valid, or
 * nothing of the call is published (a consumer could only dead-letter it), and the envelopes become
 * messages the same way (`toEventMessage`: key = stream id, value = the envelope's JSON, routing headers).
 */
import { toEventMessage, validateEnvelope, type EventEnvelope, type EventMessage } from '@trustmesh/platform-events';

import { BusError } from './bus.error';

/** The messages of one publish call, in order; `ENVELOPE_INVALID` naming the first invalid envelope and its issues. */
export function publishableMessages(topic: string, envelopes: readonly EventEnvelope[]): EventMessage[] {
  return envelopes.map((envelope, index) => {
    const verdict = validateEnvelope(envelope);
    if (!verdict.ok) {
      const issues = verdict.issues.map(({ code, field }) => `${code}${field ? ` (${field})` : ''}`).join(', ');
      throw new BusError('ENVELOPE_INVALID', `Envelope ${index + 1} of ${envelopes.length} for ${topic} is not valid: ${issues}. Nothing was published.`);
    }
    return toEventMessage(envelope);
  });
}
