/**
 * Pure folds of the control plane's streams into the state a command is decided on (`evolve` in the
 * event-sourcing sense): no I/O, tested given/when/then in control.state.spec.ts.
 */
import type { EventEnvelope } from '@trustmesh/platform-events';

import {
  isControlEvent,
  type BrowserSessionIssued,
  type DeviceEnrolled,
  type DeviceRevoked,
  type PairingCodeIssued,
  type PairingCodeRedeemed,
} from './control.events';

export interface DeviceState {
  version: number;
  enrolled: DeviceEnrolled | null;
  revoked: DeviceRevoked | null;
}

export function deviceState(events: readonly EventEnvelope[]): DeviceState {
  const state: DeviceState = { version: events.length, enrolled: null, revoked: null };
  for (const event of events) {
    if (isControlEvent(event, 'DeviceEnrolled')) state.enrolled = event.data;
    else if (isControlEvent(event, 'DeviceRevoked') && !state.revoked) state.revoked = event.data;
  }
  return state;
}

export interface PairingCodeState {
  version: number;
  issued: PairingCodeIssued | null;
  redeemed: PairingCodeRedeemed | null;
}

export function pairingCodeState(events: readonly EventEnvelope[]): PairingCodeState {
  const state: PairingCodeState = { version: events.length, issued: null, redeemed: null };
  for (const event of events) {
    if (isControlEvent(event, 'PairingCodeIssued')) state.issued = event.data;
    else if (isControlEvent(event, 'PairingCodeRedeemed')) state.redeemed = event.data;
  }
  return state;
}

export type PairingCodeVerdict = 'unknown' | 'expired' | 'used' | 'redeemable';

/** Whether a pairing code may be redeemed now (§12 step 3: single use, expires). */
export function decidePairingRedeem(state: PairingCodeState, now: Date): PairingCodeVerdict {
  if (!state.issued) return 'unknown';
  if (state.redeemed) return 'used';
  if (Date.parse(state.issued.expiresAt) <= now.getTime()) return 'expired';
  return 'redeemable';
}

export interface TicketState {
  version: number;
  issued: BrowserSessionIssued | null;
  consumed: boolean;
}

export function ticketState(events: readonly EventEnvelope[]): TicketState {
  const state: TicketState = { version: events.length, issued: null, consumed: false };
  for (const event of events) {
    if (isControlEvent(event, 'BrowserSessionIssued')) state.issued = event.data;
    else if (isControlEvent(event, 'BrowserSessionTicketConsumed')) state.consumed = true;
  }
  return state;
}

export type TicketVerdict = 'SESSION_TICKET_INVALID' | 'SESSION_TICKET_EXPIRED' | 'SESSION_TICKET_ALREADY_USED' | 'ORIGIN_NOT_ALLOWED' | 'consumable';

/** The §13 upgrade checks, in the order the directory port documents. */
export function decideTicketConsume(state: TicketState, origin: string | undefined, now: Date): TicketVerdict {
  if (!state.issued) return 'SESSION_TICKET_INVALID';
  if (Date.parse(state.issued.expiresAt) <= now.getTime()) return 'SESSION_TICKET_EXPIRED';
  if (state.consumed) return 'SESSION_TICKET_ALREADY_USED';
  if (origin === undefined || origin !== state.issued.origin) return 'ORIGIN_NOT_ALLOWED';
  return 'consumable';
}
