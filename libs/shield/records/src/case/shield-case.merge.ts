/**
 * The consult merge of §4, pure, so that the service can hand the analyzer the merged case before the
 * consultation exists and the decider can repeat it exactly:
 *
 * 1. `identifyConsultItems`: items without an id get a new one (so they always append); the later of two
 *    items with one id in the same input wins, at the position of the first.
 * 2. `mergeConsultInput`: existing order kept, an item whose id the case has replaces it in place, the
 *    others append in input order; nothing is deleted; a non-empty `proposedAction` replaces the case's;
 *    `updatedAt = now`; title, goal, brief, counterparty and guidance never change. A result beyond the
 *    case maxima (100 facts, 100 evidence, 50 policies) is refused and nothing changes. A closed case
 *    refuses ("Shield case is closed").
 *
 * Ids compare as written (the reference does the same): the same UUID in another letter case is
 * another id.
 */
import type { ShieldIdGenerator } from '../shield-ids';
import type { ConsultInput, Evidence, Fact, Policy, ShieldCase } from '../shield.types';
import type { ShieldIssue, ShieldResult } from '../validation/shield-issue';
import { SHIELD_INPUT_LIMITS } from '../validation/shield-inputs.validator';

export interface IdentifiedConsultItems {
  facts: Fact[];
  evidence: Evidence[];
  policies: Policy[];
}

/** Keeps one item per id: the later duplicate's value at the first one's position (as a Map does). */
function byId<T>(items: readonly T[], idOf: (item: T) => string): T[] {
  const kept = new Map<string, T>();
  for (const item of items) kept.set(idOf(item), item);
  return [...kept.values()];
}

export function identifyConsultItems(input: Pick<ConsultInput, 'facts' | 'evidence' | 'policies'>, newId: ShieldIdGenerator): IdentifiedConsultItems {
  const facts = input.facts.map(({ factId, ...rest }) => ({ factId: factId ?? newId(), ...rest }));
  const evidence = input.evidence.map(({ evidenceId, ...rest }) => ({ evidenceId: evidenceId ?? newId(), ...rest }));
  const policies = input.policies.map(({ policyId, ...rest }) => ({ policyId: policyId ?? newId(), ...rest }));
  return {
    facts: byId(facts, (item) => item.factId),
    evidence: byId(evidence, (item) => item.evidenceId),
    policies: byId(policies, (item) => item.policyId),
  };
}

/** Existing items in order, those with a known id replaced in place, the others appended. */
export function mergeItems<T>(existing: readonly T[], incoming: readonly T[], idOf: (item: T) => string): T[] {
  const merged = new Map<string, T>();
  for (const item of existing) merged.set(idOf(item), item);
  for (const item of incoming) merged.set(idOf(item), item);
  return [...merged.values()];
}

/** The case with the identified items merged in (no status, tier or consultation change). */
export function applyConsultItems(caseRecord: ShieldCase, items: IdentifiedConsultItems, proposedAction: string | undefined, now: string): ShieldCase {
  return {
    ...caseRecord,
    ...(proposedAction !== undefined && proposedAction !== '' && { proposedAction }),
    facts: mergeItems(caseRecord.facts, items.facts, (item) => item.factId),
    evidence: mergeItems(caseRecord.evidence, items.evidence, (item) => item.evidenceId),
    policies: mergeItems(caseRecord.policies, items.policies, (item) => item.policyId),
    updatedAt: now,
  };
}

export const SHIELD_CASE_CLOSED_MESSAGE = 'Shield case is closed';

/** §4 merge with its refusals: the case as the analyzer must see it. */
export function mergeConsultInput(caseRecord: ShieldCase, items: IdentifiedConsultItems, proposedAction: string | undefined, now: string): ShieldResult<ShieldCase> {
  if (caseRecord.status === 'closed') return { ok: false, issues: [{ code: 'SHIELD_CASE_CLOSED', path: '', message: SHIELD_CASE_CLOSED_MESSAGE }] };
  const merged = applyConsultItems(caseRecord, items, proposedAction, now);
  const issues: ShieldIssue[] = [];
  const limits = [
    ['facts', merged.facts.length, SHIELD_INPUT_LIMITS.caseFacts],
    ['evidence', merged.evidence.length, SHIELD_INPUT_LIMITS.caseEvidence],
    ['policies', merged.policies.length, SHIELD_INPUT_LIMITS.casePolicies],
  ] as const;
  for (const [key, count, max] of limits) {
    if (count > max) {
      issues.push({
        code: 'SHIELD_CASE_LIMIT_EXCEEDED',
        path: `/${key}`,
        message: `The case may hold at most ${max} ${key}; merging these would make ${count}. Send fewer new items, or reuse existing ids to replace items.`,
      });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: merged };
}
