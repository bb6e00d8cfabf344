import { createEnvelope } from '@trustmesh/platform-events';

import { controlEvent, type ControlEvent } from './control.events';
import { decidePairingRedeem, decideTicketConsume, deviceState, pairingCodeState, ticketState } from './control.state';

const WORKSPACE = '0190a0b0-0000-7000-8000-000000000001';
const stream = (...events: ControlEvent[]) =>
  events.map((event, index) => createEnvelope<unknown>(event, { streamId: 's', streamVersion: index + 1, producer: 'test@0' }));
const NOW = new Date('2026-11-30T12:00:00.000Z');
const issuedCode = (expiresAt: string) =>
  controlEvent('PairingCodeIssued', { codeId: 'c', workspaceId: WORKSPACE, requestedByUserId: 'u', issuedAt: '2026-11-30T11:50:00.000Z', expiresAt });
const issuedTicket = (expiresAt: string) =>
  controlEvent('BrowserSessionIssued', {
    sessionId: 's',
    workspaceId: WORKSPACE,
    origin: 'https://app.example',
    acceptedWireVersions: ['1.2'],
    userId: 'u',
    issuedAt: '2026-11-30T11:59:00.000Z',
    expiresAt,
  });

describe('pairing code decisions', () => {
  it('given an issued, unexpired, unused code, redeem is allowed', () => {
    expect(decidePairingRedeem(pairingCodeState(stream(issuedCode('2026-11-30T12:05:00.000Z'))), NOW)).toBe('redeemable');
  });
  it('given no stream, the code is unknown', () => {
    expect(decidePairingRedeem(pairingCodeState([]), NOW)).toBe('unknown');
  });
  it('given a redeemed code, it is used, even after expiry', () => {
    const events = stream(issuedCode('2026-11-30T11:55:00.000Z'), controlEvent('PairingCodeRedeemed', { codeId: 'c', workspaceId: WORKSPACE, deviceId: 'd', redeemedAt: '' }));
    expect(decidePairingRedeem(pairingCodeState(events), NOW)).toBe('used');
  });
  it('given an expired code, it expires at its instant exactly', () => {
    expect(decidePairingRedeem(pairingCodeState(stream(issuedCode(NOW.toISOString()))), NOW)).toBe('expired');
  });
});

describe('browser ticket decisions', () => {
  const fresh = ticketState(stream(issuedTicket('2026-11-30T12:01:00.000Z')));
  it('given a fresh ticket and its origin, it is consumable', () => {
    expect(decideTicketConsume(fresh, 'https://app.example', NOW)).toBe('consumable');
  });
  it('refuses in the documented order: invalid, expired, used, origin', () => {
    expect(decideTicketConsume(ticketState([]), 'https://app.example', NOW)).toBe('SESSION_TICKET_INVALID');
    const expiredAndUsed = ticketState(
      stream(issuedTicket('2026-11-30T11:59:30.000Z'), controlEvent('BrowserSessionTicketConsumed', { sessionId: 's', workspaceId: WORKSPACE, consumedAt: '' })),
    );
    expect(decideTicketConsume(expiredAndUsed, 'https://evil.example', NOW)).toBe('SESSION_TICKET_EXPIRED');
    const used = ticketState(stream(issuedTicket('2026-11-30T12:01:00.000Z'), controlEvent('BrowserSessionTicketConsumed', { sessionId: 's', workspaceId: WORKSPACE, consumedAt: '' })));
    expect(decideTicketConsume(used, 'https://evil.example', NOW)).toBe('SESSION_TICKET_ALREADY_USED');
    expect(decideTicketConsume(fresh, 'https://app.example:443x', NOW)).toBe('ORIGIN_NOT_ALLOWED');
    expect(decideTicketConsume(fresh, undefined, NOW)).toBe('ORIGIN_NOT_ALLOWED');
  });
});

describe('device state', () => {
  it('keeps the first revocation', () => {
    const enrolled = controlEvent('DeviceEnrolled', { deviceId: 'd', workspaceId: WORKSPACE, codeId: 'c', credentialVerifier: 'ab', enrolledAt: '' });
    const revoke = (revokedAt: string) => controlEvent('DeviceRevoked', { deviceId: 'd', workspaceId: WORKSPACE, reason: '', revokedByUserId: '', revokedAt });
    const state = deviceState(stream(enrolled, revoke('first'), revoke('second')));
    expect(state.version).toBe(3);
    expect(state.revoked?.revokedAt).toBe('first');
  });
});
