/**
 * What the analysis parts hand each other before wording: extracted claims, their §9.4 checks, §9.5 signals and
 * policy/guidance conflicts. Internal to the library; the public output is `ShieldAnalysis`.
 */
import type { ClaimStatus, RiskTier, Tactic } from '@trustmesh/shield-records';

import type { Amount } from './amount.parser';
import type { Sentence } from './claim.anchors';
import type { TimeMention } from './time.parser';

export type ClaimKind = 'amount' | 'date' | 'identity' | 'approval' | 'authority' | 'account' | 'policy' | 'receipt' | 'owner' | 'promise' | 'history' | 'reference' | 'event' | 'reason';

export interface ExtractedClaim {
  readonly kind: ClaimKind;
  /** The claim in neutral words, with at most a short quoted cue (§12). */
  readonly claim: string;
  readonly amount?: Amount;
  readonly account?: string;
  readonly time?: TimeMention;
  /** For receipt claims: "arrived damaged" rather than "never arrived". */
  readonly damaged?: boolean;
  /** The sentence the claim was found in: what checks it against the items (names, shared words, denials). */
  readonly sentence?: Sentence;
  /** For reference claims: the record id or name the sentence refers to. */
  readonly anchor?: string;
  /** The sentence states a change (new details): a record of the old details does not conflict with it. */
  readonly change?: boolean;
}

export interface CheckedClaim extends ExtractedClaim {
  readonly status: ClaimStatus;
  readonly significance: RiskTier;
  readonly evidenceReferences: readonly string[];
  readonly explanation: string;
}

/** How a conflict can be resolved: by an approver, by a changed plan, by evidence such as a call-back, or not at all (§9.1). */
export type ResolutionPath = 'approval' | 'modify' | 'evidence' | 'none';

export type ConflictKind =
  | 'amount_limit'
  | 'window'
  | 'approval_required'
  | 'callback_required'
  | 'forbidden'
  | 'changed_destination'
  | 'data_not_needed'
  | 'injected_instructions'
  | 'scope';

export interface Conflict {
  readonly kind: ConflictKind;
  readonly severity: RiskTier;
  readonly path: ResolutionPath;
  readonly references: readonly string[];
  /** One rationale line (never quotes owner guidance or thresholds to the counterparty: it is for the agent). */
  readonly reason: string;
  /** The safe alternative to describe in next steps, when `path` is `modify`. */
  readonly alternative?: string;
  readonly fromGuidance: boolean;
}

export interface Signal {
  readonly tactic: Tactic;
  readonly observation: string;
  readonly confidence: number;
  readonly significance: RiskTier;
  /** Aims at serious harm (credentials, funds to a changed destination, permissions, switched-off rules), §9.1. */
  readonly seriousHarm: boolean;
}

export const TIER_RANK: Readonly<Record<RiskTier, number>> = { low: 0, medium: 1, high: 2, critical: 3 };
export const TIERS: readonly RiskTier[] = ['low', 'medium', 'high', 'critical'];

export function maxTier(a: RiskTier, b: RiskTier): RiskTier {
  return TIER_RANK[a] >= TIER_RANK[b] ? a : b;
}

export function raiseTier(tier: RiskTier, steps = 1): RiskTier {
  return TIERS[Math.min(3, TIER_RANK[tier] + steps)] ?? 'critical';
}
