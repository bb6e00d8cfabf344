/**
 * Builds analysis requests for the tests: a merged case, a consult input and, optionally, earlier consultations and
 * counterparty knowledge. Ids are fixed strings so tests can assert citations.
 */
import type {
  AnalysisRequest,
  CounterpartyOutcome,
  Evidence,
  Fact,
  OwnerGuidance,
  Policy,
  RegistryKnowledge,
  ShieldCase,
  ShieldConsultation,
} from '@trustmesh/shield-records';

export interface CaseSpec {
  message: string;
  context?: string;
  goal?: string;
  brief?: string;
  proposedAction?: string;
  counterparty?: ShieldCase['counterparty'];
  facts?: (Partial<Fact> & { statement: string })[];
  evidence?: (Partial<Evidence> & { summary: string })[];
  policies?: (Partial<Policy> & { statement: string })[];
  guidance?: string[];
  prior?: ShieldConsultation[];
  outcomes?: Partial<CounterpartyOutcome>[];
  /** What the card registry knows of the counterparty reference. */
  registry?: RegistryKnowledge;
  updatedAt?: string;
}

export function request(spec: CaseSpec): AnalysisRequest {
  const facts: Fact[] = (spec.facts ?? []).map((f, i) => ({
    factId: f.factId ?? `fact-${i + 1}`,
    statement: f.statement,
    source: f.source ?? 'system',
    status: f.status ?? 'verified',
    evidenceReferences: f.evidenceReferences ?? [],
  }));
  const evidence: Evidence[] = (spec.evidence ?? []).map((e, i) => ({
    evidenceId: e.evidenceId ?? `ev-${i + 1}`,
    type: e.type ?? 'system_record',
    summary: e.summary,
    verification: e.verification ?? 'verified',
  }));
  const policies: Policy[] = (spec.policies ?? []).map((p, i) => ({
    policyId: p.policyId ?? `pol-${i + 1}`,
    title: p.title ?? `Policy ${i + 1}`,
    statement: p.statement,
  }));
  const ownerGuidance: OwnerGuidance[] = (spec.guidance ?? []).map((instruction, i) => ({
    guidanceId: `guid-${i + 1}`,
    instruction,
    scope: 'case',
    createdAt: '2026-11-30T10:00:00.000Z',
  }));
  const updatedAt = spec.updatedAt ?? '2026-12-01T12:00:00.000Z';
  const caseRecord: ShieldCase = {
    protocolVersion: '0.1',
    caseId: '7b0c6a34-5d7e-4f4c-9d55-0f3c2a1b9e01',
    agentId: 'agent-support',
    title: 'Test case',
    goal: spec.goal ?? 'Handle the counterparty request correctly.',
    brief: spec.brief ?? '',
    ...(spec.proposedAction ? { proposedAction: spec.proposedAction } : {}),
    counterparty: spec.counterparty ?? { type: 'human', reference: 'customer-42' },
    status: 'open',
    riskTier: 'medium',
    facts,
    evidence,
    policies,
    ownerGuidance,
    createdAt: '2026-11-30T09:00:00.000Z',
    updatedAt,
  };
  const outcomes = (spec.outcomes ?? []).map((o, i) => ({
    caseId: o.caseId ?? `0d1e2f30-0000-4000-8000-00000000000${i}`,
    result: o.result ?? 'successful',
    acceptedAdvice: o.acceptedAdvice ?? true,
    riskTier: o.riskTier ?? 'medium',
    closedAt: o.closedAt ?? '2026-10-01T00:00:00.000Z',
  }));
  return {
    caseRecord,
    consult: { message: spec.message, situationContext: spec.context ?? '', facts: [], evidence: [], policies: [] },
    priorConsultations: spec.prior ?? [],
    ...(outcomes.length > 0 || spec.registry
      ? { counterparty: { reference: caseRecord.counterparty.reference ?? 'x', outcomes, ...(spec.registry ? { registry: spec.registry } : {}) } }
      : {}),
  };
}
