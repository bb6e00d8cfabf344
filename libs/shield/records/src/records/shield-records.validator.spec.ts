import { exampleAnalysis, exampleCase, exampleConsultation, exampleOutcome } from '../../test/shield-record.examples';
import type { ShieldIssue, ShieldResult } from '../validation/shield-issue';
import { validateShieldAnalysis, validateShieldCase, validateShieldConsultation, validateShieldOutcome } from './shield-records.validator';

function issuesOf<T>(result: ShieldResult<T>): Array<Pick<ShieldIssue, 'code' | 'path'>> {
  if (result.ok) throw new Error('expected a refusal');
  return result.issues.map(({ code, path }) => ({ code, path }));
}

const withConsultationCreatedAt = (createdAt: string) => validateShieldConsultation({ ...exampleConsultation, createdAt });

describe('record validation against the schemas', () => {
  it('accepts the example records', () => {
    expect(validateShieldCase(exampleCase).ok).toBe(true);
    expect(validateShieldConsultation(exampleConsultation).ok).toBe(true);
    expect(validateShieldAnalysis(exampleAnalysis).ok).toBe(true);
    expect(validateShieldOutcome(exampleOutcome).ok).toBe(true);
  });

  it('accepts a case with every optional field and full lists', () => {
    const full = {
      ...exampleCase,
      proposedAction: 'Pay the account on record',
      counterparty: { type: 'agent', reference: 'card:northwind-billing' },
      status: 'closed',
      riskTier: 'critical',
      evidence: [{ evidenceId: '00000000-0000-4000-8000-000000000002', type: 'external_claim', summary: 's', sourceReference: 'r', verification: 'contradicted' }],
      policies: [{ policyId: '00000000-0000-4000-8000-000000000003', title: 't', statement: 's', sourceReference: 'r' }],
      ownerGuidance: [{ guidanceId: '00000000-0000-4000-8000-000000000004', instruction: 'i', scope: 'agent', createdAt: '2026-03-02T09:01:00Z' }],
      latestConsultationId: '00000000-0000-4000-8000-000000000005',
      latestDisposition: 'do_not_proceed',
      closedAt: '2026-03-02T10:00:00.123456Z',
    };
    expect(validateShieldCase(full).ok).toBe(true);
  });

  it('names missing and unknown fields by pointer, all at once', () => {
    const { goal: _goal, ...withoutGoal } = exampleCase;
    expect(issuesOf(validateShieldCase({ ...withoutGoal, counterparty: { type: 'human', email: 'x' }, notes: '' }))).toEqual([
      { code: 'SHIELD_FIELD_REQUIRED', path: '/goal' },
      { code: 'SHIELD_FIELD_UNKNOWN', path: '/notes' },
      { code: 'SHIELD_FIELD_UNKNOWN', path: '/counterparty/email' },
    ]);
  });

  it('refuses null for an optional field and a wrong protocol version', () => {
    expect(issuesOf(validateShieldCase({ ...exampleCase, proposedAction: null, protocolVersion: '0.2' }))).toEqual([
      { code: 'SHIELD_FIELD_ENUM', path: '/protocolVersion' },
      { code: 'SHIELD_FIELD_TYPE', path: '/proposedAction' },
    ]);
  });

  it('refuses ids outside the §2 pattern and more items than the case maxima', () => {
    const facts = Array.from({ length: 101 }, () => exampleCase.facts[0]);
    expect(issuesOf(validateShieldCase({ ...exampleCase, caseId: 'case-1', facts }))).toEqual([
      { code: 'SHIELD_ID_INVALID', path: '/caseId' },
      { code: 'SHIELD_LIST_TOO_LONG', path: '/facts' },
    ]);
  });

  it.each(['2024-02-29T00:00:00Z', '2000-02-29T23:59:59.5Z', '2026-12-31T23:59Z', '2026-03-02T09:00:00.123456789Z'])('accepts the §8.3 timestamp %s', (timestamp) => {
    expect(withConsultationCreatedAt(timestamp).ok).toBe(true);
  });

  it.each(['2025-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-03-02T24:00:00Z', '2026-03-02T09:00:00+01:00', '2026-03-02 09:00:00Z', '2026-03-02T09:00:00z', '2026-03-02'])(
    'refuses %s with SHIELD_TIMESTAMP_INVALID',
    (timestamp) => {
      expect(issuesOf(withConsultationCreatedAt(timestamp))).toEqual([{ code: 'SHIELD_TIMESTAMP_INVALID', path: '/createdAt' }]);
    },
  );

  it('holds the inputDigest to 43 base64url characters', () => {
    for (const digest of ['auFu4XMNWPYqXheUk07asLnZ9az6XRJzJgvF4Dpd-1', 'auFu4XMNWPYqXheUk07asLnZ9az6XRJzJgvF4Dpd-1c=', 'auFu4XMNWPYqXheUk07asLnZ9az6XRJzJgvF4Dpd+1c']) {
      expect(issuesOf(validateShieldConsultation({ ...exampleConsultation, inputDigest: digest }))).toEqual([{ code: 'SHIELD_DIGEST_INVALID', path: '/inputDigest' }]);
    }
  });

  it('checks the analysis inside a consultation and on its own with the same pointers below it', () => {
    const analysis = { ...exampleAnalysis, confidence: 1.5, rationale: [], claims: [{ ...exampleAnalysis.claims[0], status: 'probable' }] };
    const expected = [
      { code: 'SHIELD_NUMBER_OUT_OF_RANGE', path: '/confidence' },
      { code: 'SHIELD_LIST_TOO_SHORT', path: '/rationale' },
      { code: 'SHIELD_FIELD_ENUM', path: '/claims/0/status' },
    ];
    expect(issuesOf(validateShieldAnalysis(analysis))).toEqual(expected);
    expect(issuesOf(validateShieldConsultation({ ...exampleConsultation, analysis }))).toEqual(expected.map((issue) => ({ ...issue, path: `/analysis${issue.path}` })));
  });

  it('refuses generation keys of later revisions (§15) and bad token counts', () => {
    const generation = { ...exampleConsultation.generation, strategy: 'deep', tokenUsage: { inputTokens: -1, outputTokens: 1.5 } };
    expect(issuesOf(validateShieldConsultation({ ...exampleConsultation, generation }))).toEqual([
      { code: 'SHIELD_FIELD_UNKNOWN', path: '/generation/strategy' },
      { code: 'SHIELD_NUMBER_OUT_OF_RANGE', path: '/generation/tokenUsage/inputTokens' },
      { code: 'SHIELD_FIELD_TYPE', path: '/generation/tokenUsage/outputTokens' },
    ]);
  });

  it('checks outcomes: enums, the optional observedImpact, the reporter', () => {
    expect(validateShieldOutcome({ ...exampleOutcome, observedImpact: 'EUR 18,400 not lost' }).ok).toBe(true);
    expect(issuesOf(validateShieldOutcome({ ...exampleOutcome, result: 'won', reportedBy: 'counterparty', observedImpact: '' }))).toEqual([
      { code: 'SHIELD_FIELD_ENUM', path: '/result' },
      { code: 'SHIELD_FIELD_TOO_SHORT', path: '/observedImpact' },
      { code: 'SHIELD_FIELD_ENUM', path: '/reportedBy' },
    ]);
  });

  it('refuses a value that is not an object at the root pointer', () => {
    expect(issuesOf(validateShieldOutcome([exampleOutcome]))).toEqual([{ code: 'SHIELD_FIELD_TYPE', path: '' }]);
  });
});
