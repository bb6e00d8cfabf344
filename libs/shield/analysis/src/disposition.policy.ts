/**
 * Chooses the disposition (SHIELD.md §9.1 and its tie-break), the risk tier (§9.2) and the analysis confidence (§9.3)
 * from the checked claims, signals and conflicts.
 *
 * §9.1 rows, least to most restrictive; the most restrictive that applies wins, except that `modify_plan` or
 * `seek_approval` is preferred to `do_not_proceed` when a safe path exists (an approver can decide, or a safe variant
 * reaches the legitimate goal). A known fraud pattern (several strong tactics converging on serious harm) has no safe
 * variant: acting under that pressure is the harm.
 */
import type { Disposition, RiskTier } from '@trustmesh/shield-records';

import { maxTier, raiseTier, TIER_RANK, type CheckedClaim, type Conflict, type Signal } from './analysis.findings';
import type { CaseView } from './case.view';
import { topicBit } from './topic.lexicon';

export interface Decision {
  readonly disposition: Disposition;
  readonly riskTier: RiskTier;
  readonly confidence: number;
  /** Why the tie-break picked a safe path over do_not_proceed, when it did. */
  readonly softened: boolean;
}

export interface DecisionInput {
  readonly view: CaseView;
  readonly claims: readonly CheckedClaim[];
  readonly signals: readonly Signal[];
  readonly conflicts: readonly Conflict[];
  readonly missingCount: number;
  readonly badHistory: number;
  readonly goodHistory: number;
}

const MATERIAL: readonly RiskTier[] = ['high', 'critical'];

function baseTier(view: CaseView): RiskTier {
  const t = view.requestTopics;
  const amount = view.amounts.reduce((m, a) => Math.max(m, a.value), 0);
  if (t & (topicBit('credentials') | topicBit('access') | topicBit('deletion'))) return 'high';
  if (t & topicBit('personalData')) return 'medium';
  if (t & topicBit('bankDetails')) return 'high';
  if (t & (topicBit('payment') | topicBit('refund'))) return amount >= 5_000 ? 'high' : 'medium';
  if (amount > 0 || t & (topicBit('contract') | topicBit('discount'))) return 'medium';
  return 'low';
}

export function decide(input: DecisionInput): Decision {
  const { view, claims, signals, conflicts, missingCount, badHistory, goodHistory } = input;
  const real = signals.filter((s) => s.tactic !== 'none');
  const strong = real.filter((s) => s.confidence >= 0.6);

  // Risk tier: the harm if the agent acts and the analysis is wrong (§9.2).
  let tier = baseTier(view);
  for (const c of conflicts) tier = maxTier(tier, c.severity);
  for (const s of strong) tier = maxTier(tier, s.significance);
  // A claim's significance feeds the tier, but only payee and owner claims carry critical harm on their own (§9.2).
  for (const k of claims) {
    if (k.status !== 'contradicted' && !(k.status === 'unverified' && TIER_RANK[k.significance] >= 2)) continue;
    tier = maxTier(tier, k.significance === 'critical' && !(k.kind === 'account' || k.kind === 'owner') ? 'high' : k.significance === 'critical' && k.status === 'unverified' ? 'high' : k.significance);
  }
  if (badHistory > 0) tier = raiseTier(tier);

  // Which §9.1 rows apply.
  // A refuted statement about a record or event (an invoice already paid, a card already used) means the request as
  // stated rests on a false premise: change the plan (pay what the records show), not a fraud finding by itself.
  // Likewise a refuted amount that is not material by itself (a €90 charge the payment records do not show): act on
  // the figure the records show instead.
  const statementRefuted = claims.some(
    (k) => k.status === 'contradicted' && (k.kind === 'reference' || k.kind === 'event' || (k.kind === 'amount' && k.significance !== 'low')),
  );
  const contradictedMaterial = claims.some((k) => k.status === 'contradicted' && MATERIAL.includes(k.significance) && k.kind !== 'history' && k.kind !== 'reference' && k.kind !== 'event');
  const noExit = conflicts.some((c) => c.path === 'none');
  // Asking for more than agreed always has a safe variant (do only the agreed part), so it is never harm without one.
  const harmful = strong.filter((s) => s.seriousHarm && s.tactic !== 'scope_expansion');
  const fraudPattern = harmful.length > 0 && strong.filter((s) => TIER_RANK[s.significance] >= 2).length >= 3;
  // Handing over a secret has no safe variant, unless a policy spells out the safe path for the legitimate goal.
  const credentialGrab = strong.some((s) => s.tactic === 'data_extraction' && s.significance === 'critical') && !conflicts.some((c) => c.kind === 'forbidden' && c.path !== 'none');
  const dnp = noExit || contradictedMaterial || harmful.length > 0;
  // A refuted approval goes to an approver, unless the owner's own word refutes it: the owner has decided already,
  // so the agent acts within the owner's mandate instead (modify_plan).
  const ownerFacts = new Set(view.request.caseRecord.facts.filter((f) => f.source === 'owner' && f.status === 'verified').map((f) => f.factId));
  const refutedApproval = claims.filter((k) => k.status === 'contradicted' && (k.kind === 'approval' || k.kind === 'authority' || k.kind === 'account'));
  const ownerRefuted = refutedApproval.length > 0 && refutedApproval.every((k) => k.evidenceReferences.some((r) => ownerFacts.has(r)));
  const approvalPath = conflicts.some((c) => c.path === 'approval') || (contradictedMaterial && refutedApproval.length > 0 && !ownerRefuted);
  const evidencePath = conflicts.some((c) => c.path === 'evidence');
  const modifyPath =
    conflicts.some((c) => c.path === 'modify') ||
    statementRefuted ||
    ownerRefuted ||
    real.some((s) => s.confidence >= 0.6 && (s.tactic === 'scope_expansion' || (s.tactic === 'policy_bypass' && s.significance === 'critical')));
  const unverifiedMaterial = claims.some((k) => k.status === 'unverified' && MATERIAL.includes(k.significance));
  const gather = unverifiedMaterial || missingCount > 0 || evidencePath;
  // Residual uncertainty (§9.1): a material claim short of verified, any signal, a bad history, or a consequential
  // request that no authoritative record backs at all. Claims that change details only (§9.2 medium) or are peripheral
  // leave none: `proceed` asks material claims to be verified "or immaterial".
  const uncertain = claims.some((k) => (k.status === 'unverified' || k.status === 'supported') && MATERIAL.includes(k.significance));
  const backed = claims.some((k) => k.status === 'verified' && k.evidenceReferences.length > 0);
  const caution = real.length > 0 || uncertain || (TIER_RANK[tier] >= 2 && !backed) || badHistory > 0;

  let disposition: Disposition;
  let softened = false;
  if (dnp && (fraudPattern || credentialGrab || (noExit && !approvalPath))) disposition = 'do_not_proceed';
  else if (dnp && !contradictedMaterial && !noExit && !approvalPath && !modifyPath && evidencePath) disposition = 'gather_evidence';
  else if (dnp && (approvalPath || modifyPath)) {
    disposition = approvalPath ? 'seek_approval' : 'modify_plan';
    softened = true;
  } else if (dnp) disposition = 'do_not_proceed';
  else if (approvalPath) disposition = 'seek_approval';
  else if (modifyPath) disposition = 'modify_plan';
  else if (gather) disposition = 'gather_evidence';
  else if (caution) disposition = 'proceed_with_caution';
  else disposition = 'proceed';

  // Confidence (§9.3): how likely the disposition survives careful human review of the case as supplied.
  const authoritativeUsed = new Set(claims.flatMap((k) => (k.status === 'verified' || k.status === 'contradicted' ? k.evidenceReferences : []))).size;
  let confidence = 0.6;
  confidence += Math.min(0.15, authoritativeUsed * 0.05);
  if (conflicts.length > 0) confidence += 0.08;
  if (strong.length > 0 && disposition !== 'proceed' && disposition !== 'proceed_with_caution') confidence += 0.07;
  if (fraudPattern || credentialGrab) confidence += 0.07;
  if (disposition === 'proceed' && view.items.length === 0 && TIER_RANK[tier] >= 1) confidence -= 0.1;
  if (disposition === 'gather_evidence') confidence -= 0.03;
  if (real.some((s) => s.confidence < 0.6)) confidence -= 0.05;
  if (goodHistory > 0 && badHistory === 0 && real.length === 0) confidence += 0.02;
  confidence = Math.round(Math.min(0.95, Math.max(0.35, confidence)) * 100) / 100;

  return { disposition, riskTier: tier, confidence, softened };
}
