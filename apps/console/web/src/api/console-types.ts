/**
 * The answers of the console's HTTP API as the page reads them (apps/console/API.md). Records that come from
 * another app's specification (Shield records, AI Cards, registry views) are typed by the fields the page
 * shows; anything else they carry is passed through untouched.
 */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Account {
  accountId: string;
  username: string;
}

export interface SessionAnswer {
  account: Account;
  csrfToken: string;
}

// ---- workspaces ------------------------------------------------------------------------------------

export interface Workspace {
  workspaceId: string;
  displayName: string;
  createdAt: string;
  endToEndEncrypted: boolean;
  status: {
    connectivity: 'online' | 'offline';
    deviceId?: string;
    wireVersion?: string;
    browserSessionCount: number;
    changedAt?: string;
  };
}

export interface PairingCode {
  pairingCode: string;
  expiresAt: string;
}

export interface Device {
  deviceId: string;
  enrolledAt: string;
  connected: boolean;
  wireVersion?: string;
  lastConnectedAt?: string;
}

export interface Revocation {
  revokedAt: string;
  disconnected: boolean;
}

export interface SessionDescriptor {
  connectUrl: string;
  expiresAt: string;
}

export interface AuditEntry {
  at: string;
  action: string;
  actor?: string;
  detail: unknown;
}

// ---- shield (SHIELD.md) ------------------------------------------------------------------------------

export type CaseStatus = 'open' | 'awaiting_input' | 'ready' | 'closed';
export type RiskTier = 'low' | 'medium' | 'high' | 'critical';
export type Disposition = 'proceed' | 'proceed_with_caution' | 'gather_evidence' | 'modify_plan' | 'seek_approval' | 'do_not_proceed';
export type CounterpartyType = 'human' | 'agent' | 'service' | 'unknown';

export interface CaseFact {
  factId: string;
  statement: string;
  source: 'owner' | 'protected_agent' | 'counterparty' | 'system';
  status: 'asserted' | 'verified' | 'disputed' | 'contradicted';
  evidenceReferences: string[];
}

export interface CaseEvidence {
  evidenceId: string;
  type: 'system_record' | 'policy_record' | 'operator_note' | 'external_claim' | 'other';
  summary: string;
  sourceReference?: string;
  verification: 'verified' | 'unverified' | 'contradicted';
}

export interface CasePolicy {
  policyId: string;
  title: string;
  statement: string;
  sourceReference?: string;
}

export interface CaseGuidance {
  guidanceId: string;
  instruction: string;
  scope: 'case' | 'agent';
  createdAt: string;
}

export interface ShieldCase {
  protocolVersion: '0.1';
  caseId: string;
  agentId: string;
  title: string;
  goal: string;
  brief: string;
  proposedAction?: string;
  counterparty: { type: CounterpartyType; reference?: string };
  status: CaseStatus;
  riskTier: RiskTier;
  facts: CaseFact[];
  evidence: CaseEvidence[];
  policies: CasePolicy[];
  ownerGuidance: CaseGuidance[];
  latestConsultationId?: string;
  latestDisposition?: Disposition;
  createdAt: string;
  updatedAt: string;
  closedAt?: string;
}

export type Significance = RiskTier;
export type ClaimStatus = 'verified' | 'supported' | 'unverified' | 'contradicted' | 'not_checkable';

export interface ShieldAnalysis {
  reply: string;
  situationSummary: string;
  disposition: Disposition;
  riskTier: RiskTier;
  confidence: number;
  rationale: string[];
  claims: Array<{ claim: string; status: ClaimStatus; significance: Significance; evidenceReferences: string[]; explanation: string }>;
  manipulationSignals: Array<{ tactic: string; observation: string; confidence: number; significance: Significance }>;
  missingEvidence: string[];
  questionsToAsk: string[];
  nextSteps: string[];
  safeguards: string[];
  suggestedResponse?: string;
}

export interface ShieldConsultation {
  protocolVersion: '0.1';
  consultationId: string;
  caseId: string;
  agentId: string;
  inputDigest: string;
  analysis: ShieldAnalysis;
  generation: { mode: 'ai' | 'fallback'; model: string; promptVersion: string; errorCode?: string };
  createdAt: string;
}

export type OutcomeResult = 'successful' | 'prevented_harm' | 'escalated' | 'false_alarm' | 'unsuccessful' | 'unknown';

export interface ShieldOutcome {
  outcomeId: string;
  caseId: string;
  agentId: string;
  result: OutcomeResult;
  acceptedAdvice: boolean;
  actionTaken: string;
  observedImpact?: string;
  reportedBy: 'owner' | 'protected_agent';
  createdAt: string;
}

export interface CaseDetail {
  case: ShieldCase;
  consultations: ShieldConsultation[];
  outcome?: ShieldOutcome;
}

export interface CounterpartyHistory {
  reference: string;
  outcomes: Array<{ caseId: string; result: OutcomeResult; acceptedAdvice: boolean; latestDisposition?: Disposition; riskTier: RiskTier; closedAt: string }>;
}

// ---- registry ----------------------------------------------------------------------------------------

export interface CardSummary {
  identifier: string;
  namespace?: string;
  kind?: string;
  type?: string;
  name?: string;
  description?: string;
  tags?: string[];
  protocols?: string[];
  publisherDomain?: string;
  status?: string;
  verified?: boolean;
  revision?: string;
  updatedAt?: string;
}

export interface FacetCount {
  value: string;
  count: number;
}

export type FacetName = 'kind' | 'namespace' | 'status' | 'tag';

export interface SearchAnswer extends Page<CardSummary> {
  facets?: Partial<Record<FacetName, FacetCount[]>>;
}

export interface RevisionView {
  revision: string;
  latest?: boolean;
  kind?: string;
  digest?: string;
  status: string;
  statusMessage?: string;
  publishedAt?: string;
  statusChangedAt?: string;
  size?: number;
}

export interface CardView {
  /** The document as published; null for a tombstone (a deleted card) or bytes that are not JSON. */
  card: Record<string, unknown> | null;
  identifier?: string;
  kind?: string;
  status: string;
  revision: string;
  revisions: RevisionView[];
  /** `verified`, `invalid`, `unverifiable` or `unsigned`. */
  signature: { state: string; keyId?: string; signer?: string };
  /** `verified` (a standing proof), `granted` (an operator's grant) or `unclaimed`. */
  ownership: { namespace: string; state: string; publisherId?: string };
}

export type ClaimProof = { kind: 'dns-txt'; name: string; value: string } | { kind: 'file'; url: string; body: string } | { kind: 'did-web'; did: string; payload: string };

export interface NamespaceClaim {
  namespace: string;
  state: 'pending' | 'verified' | 'failed';
  /** `dns` and `well-known` are claimed here; `did-web` and `granted` (an operator's grant) come from elsewhere. */
  method: 'dns' | 'well-known' | 'did-web' | 'granted';
  /** Null when there is nothing to create (a grant). */
  proof: ClaimProof | null;
  /** Why a claim failed or expired, and what to do. */
  detail?: string;
}

export interface ClaimCheck {
  namespace: string;
  state: 'pending' | 'verified' | 'failed';
  detail: string;
}

// ---- platform ----------------------------------------------------------------------------------------

export type AppName = 'relay-gateway' | 'shield-analyzer' | 'card-registry' | 'console';

export interface PlatformHealth {
  apps: Array<{ app: AppName; ready: boolean; checkedAt: string; detail?: string }>;
}

export interface PlatformMetrics {
  at: string;
  series: { connections: number; framesPerSecond: number; consultsPerSecond: number; publishesPerSecond: number };
}
