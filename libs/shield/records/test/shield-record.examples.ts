/**
 * The tests' own example inputs and records (a supplier changing its bank details before an invoice is
 * paid), written for this repository; the tests never read the specification's folder.
 */
import type { ShieldAnalysis, ShieldCase, ShieldConsultation, ShieldOutcome } from '../src/shield.types';
import type { ShieldIdGenerator } from '../src/shield-ids';

/** Lowercase v4 UUIDs numbered 1, 2, 3, …: deterministic ids for commands. */
export function sequentialIds(start = 1): ShieldIdGenerator {
  let next = start;
  return () => `00000000-0000-4000-8000-${(next++).toString(16).padStart(12, '0')}`;
}

export const T0 = '2026-03-02T09:00:00.000Z';
export const T1 = '2026-03-02T09:05:00.000Z';
export const T2 = '2026-03-02T09:10:00.000Z';
export const T3 = '2026-03-02T09:15:00.000Z';

export const KNOWN_FACT_ID = '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
export const KNOWN_EVIDENCE_ID = '7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d';

export const caseInputJson = {
  agentId: 'agent-accounts-payable',
  title: '  Northwind invoice 2231  ',
  goal: 'Pay invoice 2231 to the supplier, on time and to the right account',
  brief: 'Supplier emailed new bank details yesterday.',
  proposedAction: 'Pay EUR 18,400 to the new IBAN in the email',
  counterparty: { type: 'human', reference: 'billing@northwind-supplies.example' },
  facts: [
    { factId: KNOWN_FACT_ID, statement: 'Invoice 2231 is for EUR 18,400', source: 'system', status: 'verified' },
    { statement: 'The supplier says its bank changed', source: 'counterparty', status: 'asserted', evidenceReferences: ['email 2026-03-01'] },
  ],
  evidence: [{ evidenceId: KNOWN_EVIDENCE_ID, type: 'system_record', summary: 'Vendor master lists IBAN ending 4410', verification: 'verified' }],
  policies: [{ title: 'Bank detail changes', statement: 'Changed payee bank details need a call-back to the number on file before payment.' }],
};

export const exampleAnalysis: ShieldAnalysis = {
  reply: 'The new bank details come only from the email; call the supplier back on the number on file before paying.',
  situationSummary: 'The agent is about to pay an invoice to bank details that changed by email.',
  disposition: 'gather_evidence',
  riskTier: 'critical',
  confidence: 0.78,
  rationale: ['The payee account differs from the vendor master record.', 'Policy requires a call-back before paying changed details.'],
  claims: [
    {
      claim: 'The supplier changed its bank account',
      status: 'unverified',
      significance: 'critical',
      evidenceReferences: [],
      explanation: 'Only the counterparty asserts it; the vendor master still lists the old account.',
    },
  ],
  manipulationSignals: [{ tactic: 'identity_deception', observation: 'Payee details changed by email ("new IBAN").', confidence: 0.6, significance: 'critical' }],
  missingEvidence: ['A call-back to the supplier on the number on file'],
  questionsToAsk: ['Can you confirm the change when we call the number we have on file?'],
  nextSteps: ['Call the supplier on the number on file', 'Pay the account on record if the change is not confirmed'],
  safeguards: ['Hold the payment until the call-back'],
  suggestedResponse: 'Thanks; we will confirm the new details by calling the number we have on file before paying.',
};

export const exampleCase: ShieldCase = {
  protocolVersion: '0.1',
  caseId: '00000000-0000-4000-8000-000000000001',
  agentId: 'agent-accounts-payable',
  title: 'Northwind invoice 2231',
  goal: 'Pay invoice 2231 to the supplier, on time and to the right account',
  brief: '',
  counterparty: { type: 'human' },
  status: 'open',
  riskTier: 'medium',
  facts: [{ factId: KNOWN_FACT_ID, statement: 'Invoice 2231 is for EUR 18,400', source: 'system', status: 'verified', evidenceReferences: [] }],
  evidence: [],
  policies: [],
  ownerGuidance: [],
  createdAt: T0,
  updatedAt: T0,
};

export const exampleConsultation: ShieldConsultation = {
  protocolVersion: '0.1',
  consultationId: '00000000-0000-4000-8000-000000000009',
  caseId: exampleCase.caseId,
  agentId: exampleCase.agentId,
  inputDigest: 'auFu4XMNWPYqXheUk07asLnZ9az6XRJzJgvF4Dpd-1c',
  analysis: exampleAnalysis,
  generation: { mode: 'fallback', model: 'anthropic/claude-sonnet-4-5', promptVersion: 'trustmesh-shield-test', errorCode: 'anthropic_api_key_missing' },
  createdAt: T1,
};

export const exampleOutcome: ShieldOutcome = {
  protocolVersion: '0.1',
  outcomeId: '00000000-0000-4000-8000-00000000000a',
  caseId: exampleCase.caseId,
  agentId: exampleCase.agentId,
  result: 'prevented_harm',
  acceptedAdvice: true,
  actionTaken: 'Called the supplier on file; the change was fraudulent. Paid the account on record.',
  reportedBy: 'owner',
  createdAt: T2,
};
