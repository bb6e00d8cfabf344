/**
 * The events of one Shield case's stream (topic `shield.cases.v1`), emmett style `{ type, data }`.
 * Past tense, facts only. None carries the consult `message` or `situationContext` (§12): a consulted
 * event carries the consultation record (its `inputDigest` is the only trace of the input) and the
 * case's changes.
 */
import type { CaseStatus, Disposition, Evidence, Fact, OwnerGuidance, Policy, RiskTier, ShieldCase, ShieldConsultation, ShieldOutcome } from '../shield.types';

/** The case as created (§3): status open, risk tier medium, every item with an id. */
export interface ShieldCaseOpened {
  type: 'ShieldCaseOpened';
  data: { caseRecord: ShieldCase };
}

/** What one consultation changed on the case (§4, §5). */
export interface ShieldCaseChanges {
  /**
   * The consult input's items, every one with an id, duplicates resolved (the later wins), in the order
   * they merge: an item whose id the case has replaces it in place, the others append (§4).
   */
  mergedItems: { facts: Fact[]; evidence: Evidence[]; policies: Policy[] };
  /** Present only when the consult input carried a non-empty one, which replaced the case's. */
  proposedAction?: string;
  status: Exclude<CaseStatus, 'open' | 'closed'>;
  riskTier: RiskTier;
  latestConsultationId: string;
  latestDisposition: Disposition;
  updatedAt: string;
}

export interface ShieldCaseConsulted {
  type: 'ShieldCaseConsulted';
  data: { caseId: string; consultation: ShieldConsultation; changes: ShieldCaseChanges };
}

/** Owner guidance appended (§6); the case's `updatedAt` becomes the guidance's `createdAt`. */
export interface ShieldGuidanceAdded {
  type: 'ShieldGuidanceAdded';
  data: { caseId: string; guidance: OwnerGuidance };
}

/** The outcome reported and the case closed (§7, §5): `closedAt = updatedAt = outcome.createdAt`. */
export interface ShieldCaseClosed {
  type: 'ShieldCaseClosed';
  data: { caseId: string; outcome: ShieldOutcome; closedAt: string };
}

export type ShieldCaseEvent = ShieldCaseOpened | ShieldCaseConsulted | ShieldGuidanceAdded | ShieldCaseClosed;
export type ShieldCaseEventType = ShieldCaseEvent['type'];
