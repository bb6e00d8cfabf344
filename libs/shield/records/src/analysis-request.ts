/**
 * What an analysis reads (the deterministic analyzer and the model path alike): the merged case, the
 * consult input (transient), the case's earlier consultations, and what the platform knows about the
 * counterparty from this operator account's own closed cases (never another account's) and from the public
 * card registry (`registry.cards.v1`, the same for every account).
 */
import type { CardStatus } from '@trustmesh/cards-registry-events';

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

/** A registered card the counterparty reference names (CARDS.md identities), as the registry knows it. */
export interface RegistryCardFacts {
  identifier: string;
  /** The card's display name (at most 200 characters). */
  name?: string;
  /** The card's lifecycle: its latest visible revision's status, else `yanked` or `deleted` (CARDS.md §5). */
  status: CardStatus;
  latestRevision?: string;
  /** The latest revision's signature verified, by `did:web:<namespace>`, while the namespace's proof stands. */
  verified: boolean;
  /** Its https endpoints (at most 8). */
  endpoints: string[];
  /** Set when the card was renamed: the identifier it redirects to. */
  renamedTo?: string;
}

/**
 * What the card registry knows of the counterparty reference: public knowledge, the same for every operator
 * account. Absent when the reference names no registered card or namespace.
 */
export interface RegistryKnowledge {
  /** How the reference named it: a card's identifier, one of a card's endpoints, or a namespace (domain). */
  matchedBy: 'identifier' | 'endpoint' | 'namespace';
  /** The namespace (canonical domain) of the card, or the one named. */
  namespace: string;
  /** The publisher holding the namespace, when one does. */
  publisher?: { publisherId: string; displayName?: string };
  /** The namespace's ownership proof: standing, lapsed (re-checks failed), expired, or none recorded. */
  ownershipProof: 'verified' | 'lapsed' | 'expired' | 'none';
  /** Verified namespaces this one imitates, as the registry flagged them (at most 16). */
  lookalikeOf: { namespace: string; reason: string }[];
  card?: RegistryCardFacts;
}

/** What the platform knows about the counterparty (by `counterparty.reference`), for this operator account. */
export interface CounterpartyKnowledge {
  reference: string;
  /** Closed earlier cases with this counterparty, newest first (at most the 20 newest). */
  outcomes: CounterpartyOutcome[];
  registry?: RegistryKnowledge;
}

export interface AnalysisRequest {
  /** The case after the consult input was merged into it (§4). */
  caseRecord: ShieldCase;
  consult: ConsultInput;
  /** The case's earlier consultations, oldest first. */
  priorConsultations: readonly ShieldConsultation[];
  counterparty?: CounterpartyKnowledge;
}
