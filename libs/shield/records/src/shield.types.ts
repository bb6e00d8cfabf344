/**
 * The Shield's records and inputs (SHIELD.md §3-§9, protocol 0.1), as TypeScript types. The records'
 * JSON schemas (`schemas/`) are the source of truth for what is valid; these types state the same shapes
 * for the code that builds and reads them. Optional fields are omitted, never null (§2).
 */

export const SHIELD_PROTOCOL_VERSION = '0.1' as const;

export const COUNTERPARTY_TYPES = ['human', 'agent', 'service', 'unknown'] as const;
export const CASE_STATUSES = ['open', 'awaiting_input', 'ready', 'closed'] as const;
export const RISK_TIERS = ['low', 'medium', 'high', 'critical'] as const;
export const FACT_SOURCES = ['owner', 'protected_agent', 'counterparty', 'system'] as const;
export const FACT_STATUSES = ['asserted', 'verified', 'disputed', 'contradicted'] as const;
export const EVIDENCE_TYPES = ['system_record', 'policy_record', 'operator_note', 'external_claim', 'other'] as const;
export const EVIDENCE_VERIFICATIONS = ['verified', 'unverified', 'contradicted'] as const;
export const GUIDANCE_SCOPES = ['case', 'agent'] as const;
/** Least to most restrictive (§9.1). */
export const DISPOSITIONS = ['proceed', 'proceed_with_caution', 'gather_evidence', 'modify_plan', 'seek_approval', 'do_not_proceed'] as const;
export const CLAIM_STATUSES = ['verified', 'supported', 'unverified', 'contradicted', 'not_checkable'] as const;
export const TACTICS = [
  'urgency',
  'authority_claim',
  'emotional_pressure',
  'reciprocity',
  'scarcity',
  'policy_bypass',
  'identity_deception',
  'scope_expansion',
  'data_extraction',
  'inconsistent_claims',
  'none',
  'other',
] as const;
export const GENERATION_MODES = ['ai', 'fallback'] as const;
export const OUTCOME_RESULTS = ['successful', 'prevented_harm', 'escalated', 'false_alarm', 'unsuccessful', 'unknown'] as const;
export const OUTCOME_REPORTERS = ['owner', 'protected_agent'] as const;

export type CounterpartyType = (typeof COUNTERPARTY_TYPES)[number];
export type CaseStatus = (typeof CASE_STATUSES)[number];
/** Also a claim's or a signal's significance (§9.2). */
export type RiskTier = (typeof RISK_TIERS)[number];
export type FactSource = (typeof FACT_SOURCES)[number];
export type FactStatus = (typeof FACT_STATUSES)[number];
export type EvidenceType = (typeof EVIDENCE_TYPES)[number];
export type EvidenceVerification = (typeof EVIDENCE_VERIFICATIONS)[number];
export type GuidanceScope = (typeof GUIDANCE_SCOPES)[number];
export type Disposition = (typeof DISPOSITIONS)[number];
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];
export type Tactic = (typeof TACTICS)[number];
export type GenerationMode = (typeof GENERATION_MODES)[number];
export type OutcomeResult = (typeof OUTCOME_RESULTS)[number];
export type OutcomeReporter = (typeof OUTCOME_REPORTERS)[number];

export interface Counterparty {
  type: CounterpartyType;
  /** 1-200: who the counterparty is (an email, a domain, an agent id, a card id). */
  reference?: string;
}

export interface Fact {
  factId: string;
  statement: string;
  source: FactSource;
  status: FactStatus;
  evidenceReferences: string[];
}

export interface Evidence {
  evidenceId: string;
  type: EvidenceType;
  summary: string;
  sourceReference?: string;
  verification: EvidenceVerification;
}

export interface Policy {
  policyId: string;
  title: string;
  statement: string;
  sourceReference?: string;
}

export interface OwnerGuidance {
  guidanceId: string;
  instruction: string;
  scope: GuidanceScope;
  createdAt: string;
}

/** `shield_case` (§3). */
export interface ShieldCase {
  protocolVersion: typeof SHIELD_PROTOCOL_VERSION;
  caseId: string;
  agentId: string;
  title: string;
  goal: string;
  brief: string;
  proposedAction?: string;
  counterparty: Counterparty;
  status: CaseStatus;
  riskTier: RiskTier;
  facts: Fact[];
  evidence: Evidence[];
  policies: Policy[];
  ownerGuidance: OwnerGuidance[];
  latestConsultationId?: string;
  latestDisposition?: Disposition;
  createdAt: string;
  updatedAt: string;
  closedAt?: string;
}

/** Items as inputs carry them (§3, §4): ids optional. */
export type FactInput = Omit<Fact, 'factId'> & { factId?: string };
export type EvidenceInput = Omit<Evidence, 'evidenceId'> & { evidenceId?: string };
export type PolicyInput = Omit<Policy, 'policyId'> & { policyId?: string };

/** Case input (open, §3), validated: trimmed, defaults filled. */
export interface CaseInput {
  agentId: string;
  title: string;
  goal: string;
  brief: string;
  proposedAction?: string;
  counterparty: Counterparty;
  facts: FactInput[];
  evidence: EvidenceInput[];
  policies: PolicyInput[];
}

/** Consult input (§4), validated: trimmed, defaults filled, no ids generated. Transient: never stored (§12). */
export interface ConsultInput {
  message: string;
  situationContext: string;
  /** Kept as given ("" included) for the digest (§8.1); replaces the case's only when non-empty. */
  proposedAction?: string;
  facts: FactInput[];
  evidence: EvidenceInput[];
  policies: PolicyInput[];
}

/** Guidance input (§6), validated. */
export interface GuidanceInput {
  instruction: string;
  scope: GuidanceScope;
}

/** Close input (§7), validated. */
export interface CloseInput {
  result: OutcomeResult;
  acceptedAdvice: boolean;
  actionTaken: string;
  observedImpact?: string;
}

export interface Claim {
  claim: string;
  status: ClaimStatus;
  significance: RiskTier;
  evidenceReferences: string[];
  explanation: string;
}

export interface ManipulationSignal {
  tactic: Tactic;
  observation: string;
  confidence: number;
  significance: RiskTier;
}

/** `shield_analysis` (§9). */
export interface ShieldAnalysis {
  reply: string;
  situationSummary: string;
  disposition: Disposition;
  riskTier: RiskTier;
  confidence: number;
  rationale: string[];
  claims: Claim[];
  manipulationSignals: ManipulationSignal[];
  missingEvidence: string[];
  questionsToAsk: string[];
  nextSteps: string[];
  safeguards: string[];
  suggestedResponse?: string;
}

export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/** §8.2. */
export interface Generation {
  mode: GenerationMode;
  model: string;
  promptVersion: string;
  tokenUsage?: TokenUsage;
  errorCode?: string;
}

/** `shield_consultation` (§8): immutable once written. */
export interface ShieldConsultation {
  protocolVersion: typeof SHIELD_PROTOCOL_VERSION;
  consultationId: string;
  caseId: string;
  agentId: string;
  inputDigest: string;
  analysis: ShieldAnalysis;
  generation: Generation;
  createdAt: string;
}

/** `shield_outcome` (§7). */
export interface ShieldOutcome {
  protocolVersion: typeof SHIELD_PROTOCOL_VERSION;
  outcomeId: string;
  caseId: string;
  agentId: string;
  result: OutcomeResult;
  acceptedAdvice: boolean;
  actionTaken: string;
  observedImpact?: string;
  reportedBy: OutcomeReporter;
  createdAt: string;
}
