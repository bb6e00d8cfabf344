/**
 * How Shield case events are kept in the platform event store (topic `shield.cases.v1`, one stream per case,
 * `shield-case-<caseId>`): the records library's events (`@trustmesh/shield-records`, §3-§7) with the owning
 * operator account added to each, so projections and reads never need a second lookup to stay inside one
 * account (§12). The events carry records only: never a consult `message` or `situationContext`.
 */
import type { ShieldCaseEvent } from '@trustmesh/shield-records';

export const SHIELD_CASES_TOPIC = 'shield.cases.v1';

export const caseStreamId = (caseId: string) => `shield-case-${caseId}`;

/** A stored case event: the library's event data plus `accountId`. */
export type StoredShieldCaseEvent = { [E in ShieldCaseEvent as E['type']]: { eventType: E['type']; data: E['data'] & { accountId: string } } }[ShieldCaseEvent['type']];

export function toStored(event: ShieldCaseEvent, accountId: string): StoredShieldCaseEvent {
  return { eventType: event.type, data: { ...event.data, accountId } } as StoredShieldCaseEvent;
}

/** The library's event back from a stored one (the account id dropped). */
export function fromStored(eventType: string, data: unknown): { event: ShieldCaseEvent; accountId: string } {
  const { accountId, ...rest } = data as { accountId: string } & Record<string, unknown>;
  return { event: { type: eventType, data: rest } as ShieldCaseEvent, accountId };
}
