import { DEFAULT_PROOF_POLICY, proofRecordFrom, proofStatus } from './proof-status.policy';

describe('proofStatus', () => {
  const record = proofRecordFrom('acme.com', { ok: true, method: 'dns-txt', checkedAt: '2026-12-01T00:00:00.000Z', grantsSubdomains: true });

  it('builds a record that expires after the validity period', () => {
    expect(record).toEqual({
      namespace: 'acme.com',
      method: 'dns-txt',
      grantsSubdomains: true,
      verifiedAt: '2026-12-01T00:00:00.000Z',
      expiresAt: '2026-12-31T00:00:00.000Z',
    });
  });

  it.each([
    ['2026-12-01T00:00:00Z', 'valid'],
    ['2026-12-01T23:59:59Z', 'valid'],
    ['2026-12-02T00:00:00Z', 'due'],
    ['2026-12-30T23:59:59Z', 'due'],
    ['2026-12-31T00:00:00Z', 'expired'],
    ['2027-06-01T00:00:00Z', 'expired'],
  ])('at %s the proof is %s', (at, status) => {
    expect(proofStatus(record, new Date(at))).toBe(status);
  });

  it('follows a custom policy', () => {
    const hourly = { ...DEFAULT_PROOF_POLICY, recheckIntervalMs: 3600_000 };
    expect(proofStatus(record, new Date('2026-12-01T01:00:00Z'), hourly)).toBe('due');
  });

  it('treats unreadable timestamps as expired', () => {
    expect(proofStatus({ verifiedAt: 'yesterday', expiresAt: record.expiresAt }, new Date('2026-12-01T01:00:00Z'))).toBe('expired');
  });
});
