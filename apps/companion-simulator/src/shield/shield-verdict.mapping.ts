/**
 * What the Shield's answer becomes on the Companion's side, as pure functions:
 *
 * - the verdict a person sees. The relay protocol gives an approval one free-text field, `explanation`,
 *   of 1..100 characters (BEHAVIOUR.md §8; the wire schema is fixed), so the verdict is written compactly
 *   in order of importance: disposition and risk tier first (always whole), then the two strongest
 *   manipulation signals (and how many more), then the first question to ask (or the first reason), cut at
 *   the bound with an ellipsis;
 * - the plain sentence when the Shield could not be consulted, so the person knows the check did not run;
 * - the case the Companion opens for a counterparty request, and the outcome it reports when the person
 *   answers (SHIELD.md §3, §7).
 *
 * The Shield's records arrive as JSON text; `readVerdict` takes only the fields used here, checked, and
 * refuses anything else rather than showing a person half an answer.
 */
import type { CounterpartyAnswer, CounterpartyRequest } from '@trustmesh/relay-companion-sim';

/** The approval explanation's bound (BEHAVIOUR.md §8), counted in code points as the schema does. */
export const APPROVAL_EXPLANATION_MAX = 100;

const DISPOSITIONS = {
  proceed: 'proceed',
  proceed_with_caution: 'proceed with caution',
  gather_evidence: 'gather evidence first',
  modify_plan: 'change the plan',
  seek_approval: 'needs an owner decision',
  do_not_proceed: 'do not proceed',
} as const;
export type Disposition = keyof typeof DISPOSITIONS;

const RISK_TIERS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskTier = (typeof RISK_TIERS)[number];
const SIGNIFICANCE_ORDER = ['critical', 'high', 'medium', 'low'] as const;
const SHOWN_SIGNALS = 2;

/** The part of a consultation's analysis (SHIELD.md §9) the Companion shows. */
export interface ShieldVerdict {
  disposition: Disposition;
  riskTier: RiskTier;
  rationale: string[];
  /** Tactics other than `none`, with their significance. */
  signals: Array<{ tactic: string; significance: (typeof SIGNIFICANCE_ORDER)[number] }>;
  questionsToAsk: string[];
}

/** Why the Shield gave no verdict; each has a stable code for logs and a phrase for the person. */
export const SHIELD_FAILURES = {
  SHIELD_TIMEOUT: 'no answer in time',
  SHIELD_UNREACHABLE: 'unreachable',
  SHIELD_CREDENTIAL_REFUSED: 'credential refused',
  SHIELD_REFUSED: 'request refused',
  SHIELD_ANSWER_INVALID: 'unreadable answer',
} as const;
export type ShieldFailureCode = keyof typeof SHIELD_FAILURES;

/** The approval explanation for a verdict, at most `APPROVAL_EXPLANATION_MAX` code points. */
export function verdictExplanation(verdict: ShieldVerdict): string {
  const head = `Shield: ${DISPOSITIONS[verdict.disposition]}, ${verdict.riskTier} risk.`;
  const tactics = [...verdict.signals]
    .sort((a, b) => SIGNIFICANCE_ORDER.indexOf(a.significance) - SIGNIFICANCE_ORDER.indexOf(b.significance))
    .map((signal) => signal.tactic.replace(/_/g, ' '));
  const parts = [head];
  const distinct = [...new Set(tactics)];
  // Two signals at most, so the first question still has room; the count says how many more there are.
  if (distinct.length > 0) parts.push(`Signs: ${distinct.slice(0, SHOWN_SIGNALS).join(', ')}${distinct.length > SHOWN_SIGNALS ? ` +${distinct.length - SHOWN_SIGNALS}` : ''}.`);
  const question = verdict.questionsToAsk[0];
  const reason = verdict.rationale[0];
  if (question !== undefined) parts.push(`Ask: ${question}`);
  else if (reason !== undefined) parts.push(reason);
  return fitExplanation(parts.join(' '));
}

/** The approval explanation when the Shield could not be consulted: it says so plainly. */
export function unavailableExplanation(code: ShieldFailureCode): string {
  return fitExplanation(`Shield could not be consulted (${SHIELD_FAILURES[code]}); this request was not checked.`);
}

/** Collapses whitespace and cuts `text` to the bound on code points, marking a cut with an ellipsis. */
export function fitExplanation(text: string): string {
  const points = Array.from(text.replace(/\s+/g, ' ').trim());
  if (points.length <= APPROVAL_EXPLANATION_MAX) return points.join('');
  return `${points.slice(0, APPROVAL_EXPLANATION_MAX - 1).join('').trimEnd()}…`;
}

/** Reads a consultation record's verdict; null when it is not one (missing or unknown values). */
export function readVerdict(consultation: unknown): ShieldVerdict | null {
  const analysis = field(consultation, 'analysis');
  const disposition = field(analysis, 'disposition');
  const riskTier = field(analysis, 'riskTier');
  if (typeof disposition !== 'string' || !(disposition in DISPOSITIONS)) return null;
  if (typeof riskTier !== 'string' || !(RISK_TIERS as readonly string[]).includes(riskTier)) return null;
  const signals: ShieldVerdict['signals'] = [];
  const rawSignals = field(analysis, 'manipulationSignals');
  for (const signal of Array.isArray(rawSignals) ? rawSignals : []) {
    const tactic = field(signal, 'tactic');
    const significance = field(signal, 'significance');
    if (typeof tactic !== 'string' || !/^[a-z_]{1,40}$/.test(tactic) || tactic === 'none') continue;
    if (typeof significance !== 'string' || !(SIGNIFICANCE_ORDER as readonly string[]).includes(significance)) continue;
    signals.push({ tactic, significance: significance as ShieldVerdict['signals'][number]['significance'] });
  }
  return {
    disposition: disposition as Disposition,
    riskTier: riskTier as RiskTier,
    rationale: strings(field(analysis, 'rationale')),
    signals,
    questionsToAsk: strings(field(analysis, 'questionsToAsk')),
  };
}

/** The case input (SHIELD.md §3) for a counterparty request, within the case's bounds. */
export function caseInputFor(request: CounterpartyRequest, agentId: string): Record<string, unknown> {
  return {
    agentId,
    title: cut(`${request.counterparty.reference} asks ${request.action.agent} to ${request.action.tool}`, 160),
    goal: request.goal,
    proposedAction: cut(request.action.summary, 1000),
    counterparty: { type: request.counterparty.type, reference: request.counterparty.reference },
  };
}

/** The consult input (SHIELD.md §4): the counterparty's message, which the Shield never stores. */
export function consultInputFor(request: CounterpartyRequest): Record<string, unknown> {
  return { message: cut(request.message, 4000) };
}

/** Dispositions that advise acting; every other one advises holding back. */
const ADVISES_ACTING: ReadonlySet<Disposition> = new Set(['proceed', 'proceed_with_caution']);

/**
 * The close input (SHIELD.md §7) for how the person answered. Approved, the agent acted: `successful`.
 * Rejected: `prevented_harm` when the Shield advised holding back (its advice stopped the action), else
 * `unsuccessful` (a request the Shield found acceptable was not carried out). Unanswered (expired, or
 * withdrawn by a restart or a cancelled turn): `unknown`. `acceptedAdvice` says whether the decision
 * followed the Shield's disposition; with no verdict there was no advice to follow.
 */
export function closeInputFor(answer: CounterpartyAnswer, verdict: ShieldVerdict | null, request: CounterpartyRequest): Record<string, unknown> {
  const advisedActing = verdict !== null && ADVISES_ACTING.has(verdict.disposition);
  const tool = request.action.tool;
  switch (answer) {
    case 'approve':
      return { result: 'successful', acceptedAdvice: advisedActing, actionTaken: `The person approved ${tool} in the Companion's approval; the agent carried it out.` };
    case 'reject':
      return {
        result: verdict !== null && !advisedActing ? 'prevented_harm' : 'unsuccessful',
        acceptedAdvice: verdict !== null && !advisedActing,
        actionTaken: `The person rejected ${tool} in the Companion's approval; the agent did not act.`,
      };
    case 'expire':
      return { result: 'unknown', acceptedAdvice: false, actionTaken: `Nobody answered the approval for ${tool} before it expired; the agent did not act.` };
    case 'aborted':
      return { result: 'unknown', acceptedAdvice: false, actionTaken: `The approval for ${tool} was withdrawn (turn ended or Companion restarted); the agent did not act.` };
  }
}

/** `value[key]` when `value` is a JSON object, else undefined. */
export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.trim() !== '').slice(0, 12) : [];
}

function cut(text: string, max: number): string {
  const points = Array.from(text.trim());
  return points.length <= max ? points.join('') : points.slice(0, max).join('');
}
