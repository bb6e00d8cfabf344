/**
 * The scenario validator on hand-made records: each rule of SHIELD.md §2-§5 it enforces on a case, a consult and
 * earlier consultations, each with the code and JSON pointer a scenario author needs to fix the file.
 */
import { validateScenario } from './scenario.validator';

const CASE_ID = '2f1c8a9e-6b3d-4c1e-9a7b-0d5e4f3a2b1c';
const CONSULTATION_ID = '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d';

function scenario(): Record<string, any> {
  return {
    id: 'invoices/example',
    domain: 'invoices',
    language: 'en',
    description: 'A hand-made scenario for the validator tests.',
    case: {
      protocolVersion: '0.1',
      caseId: CASE_ID,
      agentId: 'agent-1',
      title: 'Pay invoice A-1',
      goal: 'Pay approved invoices.',
      brief: '',
      counterparty: { type: 'human', reference: 'billing@example.com' },
      status: 'open',
      riskTier: 'medium',
      facts: [{ factId: '11111111-2222-4333-8444-555555555555', statement: 'Invoice A-1 is approved.', source: 'system', status: 'verified', evidenceReferences: [] }],
      evidence: [],
      policies: [],
      ownerGuidance: [],
      createdAt: '2026-11-20T10:00:00.000Z',
      updatedAt: '2026-11-20T10:05:00.000Z',
    },
    consult: { message: 'Please pay invoice A-1.', situationContext: '', facts: [], evidence: [], policies: [] },
    expected: { disposition: 'proceed', tactics: [], claims: [{ about: ['a-1'], status: 'verified' }] },
  };
}

function priorConsultation(disposition: string): Record<string, unknown> {
  return {
    protocolVersion: '0.1',
    consultationId: CONSULTATION_ID,
    caseId: CASE_ID,
    agentId: 'agent-1',
    inputDigest: 'auFu4XMNWPYqXheUk07asLnZ9az6XRJzJgvF4Dpd-1c',
    analysis: {
      reply: 'r',
      situationSummary: 's',
      disposition,
      riskTier: 'high',
      confidence: 0.6,
      rationale: ['x'],
      claims: [],
      manipulationSignals: [],
      missingEvidence: [],
      questionsToAsk: [],
      nextSteps: ['y'],
      safeguards: [],
    },
    generation: { mode: 'fallback', model: 'anthropic/x', promptVersion: 'v1' },
    createdAt: '2026-11-20T10:02:00.000Z',
  };
}

const problems = (value: unknown) => validateScenario(value).map((error) => `${error.code} ${error.pointer}`);

describe('validateScenario', () => {
  it('accepts a well-formed scenario', () => {
    expect(validateScenario(scenario())).toEqual([]);
  });

  it('rejects unknown keys and null optionals (§2)', () => {
    const value = scenario();
    value['case']['analysisDepth'] = 'deep';
    value['case']['proposedAction'] = null;
    expect(problems(value)).toEqual(['unknown_key /case/analysisDepth', 'wrong_type /case/proposedAction']);
  });

  it('measures bounds after trimming and refuses untrimmed stored strings (§2)', () => {
    const value = scenario();
    value['case']['title'] = '   ';
    value['case']['facts'][0].statement = ' padded ';
    expect(problems(value)).toEqual(['out_of_bounds /case/title', 'bad_pattern /case/title', 'bad_pattern /case/facts/0/statement']);
  });

  it('checks uuids, enums and real calendar timestamps (§2, §3, §8.3)', () => {
    const value = scenario();
    value['case']['facts'][0].factId = '11111111-2222-0333-8444-555555555555';
    value['case']['facts'][0].source = 'customer';
    value['case']['updatedAt'] = '2026-02-30T10:00:00.000Z';
    expect(problems(value)).toEqual(['bad_uuid /case/facts/0/factId', 'not_in_enum /case/facts/0/source', 'bad_timestamp /case/updatedAt']);
  });

  it('enforces the case item maxima (§3)', () => {
    const value = scenario();
    value['case']['policies'] = Array.from({ length: 51 }, (_, index) => ({
      policyId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      title: 'p',
      statement: 's',
    }));
    expect(problems(value)).toEqual(['out_of_bounds /case/policies']);
  });

  it('requires the case to be the merged case of the consult (§4)', () => {
    const value = scenario();
    value['consult'].proposedAction = 'Pay A-1 now';
    value['consult'].facts = [{ factId: '99999999-2222-4333-8444-555555555555', statement: 'x', source: 'counterparty', status: 'asserted', evidenceReferences: [] }];
    expect(problems(value)).toEqual(['inconsistent /consult/facts/0/factId', 'inconsistent /case/proposedAction']);
  });

  it('ties the case status and latest consultation to the prior consultations (§5)', () => {
    const value = scenario();
    value['priorConsultations'] = [priorConsultation('gather_evidence')];
    expect(problems(value)).toEqual(['inconsistent /case/latestConsultationId', 'inconsistent /case/latestDisposition', 'inconsistent /case/status']);
    value['case'] = { ...value['case'], status: 'awaiting_input', latestConsultationId: CONSULTATION_ID, latestDisposition: 'gather_evidence' };
    expect(problems(value)).toEqual([]);
  });

  it('refuses a closed case, since a closed case cannot be consulted (§4)', () => {
    const value = scenario();
    value['case']['status'] = 'closed';
    expect(problems(value)).toEqual(['inconsistent /case/status']);
  });

  it('checks the labels: dispositions, claim statuses and lowercase keywords', () => {
    const value = scenario();
    value['expected'] = { disposition: 'stop', acceptableDispositions: ['proceed'], tactics: ['urgency', 'urgency'], claims: [{ about: ['A-1'], status: 'likely' }] };
    expect(problems(value)).toEqual([
      'not_in_enum /expected/disposition',
      'duplicate /expected/tactics',
      'bad_pattern /expected/claims/0/about/0',
      'not_in_enum /expected/claims/0/status',
    ]);
  });

  it("checks what the card registry knows of the counterparty, when a scenario gives it", () => {
    const value = scenario();
    const registry = {
      matchedBy: 'namespace',
      namespace: 'example.com',
      ownershipProof: 'verified',
      lookalikeOf: [],
      card: { identifier: 'https://example.com/agents/billing', status: 'active', verified: true, endpoints: [] },
    };
    value['counterparty'] = { reference: 'billing@example.com', outcomes: [], registry };
    expect(problems(value)).toEqual([]);
    value['counterparty'].registry = { ...registry, ownershipProof: 'maybe', card: { ...registry.card, status: 'retired', endpoints: Array.from({ length: 9 }, () => 'https://x.example/') } };
    expect(problems(value)).toEqual(['not_in_enum /counterparty/registry/ownershipProof', 'not_in_enum /counterparty/registry/card/status', 'out_of_bounds /counterparty/registry/card/endpoints']);
  });

  it('keys counterparty knowledge by the case counterparty reference', () => {
    const value = scenario();
    value['counterparty'] = { reference: 'someone@else.example', outcomes: [{ caseId: CASE_ID, result: 'prevented_harm', acceptedAdvice: true, riskTier: 'high', closedAt: '2026-10-01T00:00:00.000Z' }] };
    expect(problems(value)).toEqual(['inconsistent /counterparty/reference', 'inconsistent /counterparty/outcomes/0/caseId']);
  });
});
