/**
 * What an analysis reads (the deterministic analyzer and the model path alike): the merged case, the
 * consult input (transient), the case's earlier consultations, and what the platform knows about the
 * counterparty from this operator account's own closed cases (never another account's).
 */
import type { ConsultInput, Disposition, OutcomeResult, RiskTier, ShieldCase, ShieldConsultation } from './shield.types';

/** One earlier case of the same operator account with the same `counterparty.reference`, closed with an outcome. */
export interface CounterpartyOutcome {
  caseId: string;
  result: OutcomeResult;
  /** Whether the agent followed the Shield's advice in that case. */
  acceptedAdvice: boolean;
  /** That case's last disposition and risk tier, when it had a consultation. */
  latestDisposition?: Disposition;
  riskTier: RiskTier;
  closedAt: string;
}

/** What the platform knows about the counterparty (by `counterparty.reference`), for this operator account. */
export interface CounterpartyKnowledge {
  reference: string;
  /** Closed earlier cases with this counterparty, newest first (at most the 20 newest). */
  outcomes: CounterpartyOutcome[];
}

export interface AnalysisRequest {
  /** The case after the consult input was merged into it (§4). */
  caseRecord: ShieldCase;
  consult: ConsultInput;
  /** The case's earlier consultations, oldest first. */
  priorConsultations: readonly ShieldConsultation[];
  counterparty?: CounterpartyKnowledge;
}
