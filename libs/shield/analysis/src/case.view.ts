/**
 * The case as the analysis reads it: every text normalised once, every fact and evidence item classed by the weight
 * SHIELD.md §9.4 gives it, every policy and owner-guidance item parsed into the rules it states.
 *
 * §9.4 weighing: evidence is *authoritative* when `verification` is `verified` and its type is not `external_claim`;
 * a fact is authoritative when its `status` is `verified` and its `source` is not `counterparty` (labels are the
 * submitter's own declarations, §3, so a counterparty's "verified" weighs no more than its word). Items marked
 * `contradicted` assert something known false; `disputed` facts alone settle nothing. Everything else corroborates.
 *
 * §6: owner guidance is authoritative over the analyzer's preferences, so it is parsed as rules next to the policies,
 * never as evidence: it can require a call-back or approval, or give one, but cannot make a claim verified. Text in the
 * message or in a fact that claims to come from the owner is not guidance (the tactic detector flags it instead).
 */
import type { AnalysisRequest } from '@trustmesh/shield-records';

import { findAmounts, type Amount } from './amount.parser';
import { CueScanner, itemHas } from './cue.patterns';
import { foldText, normalizeText, type NormalizedText } from './text.normalizer';
import { findTimeMention, findWindowDays, type TimeMention } from './time.parser';
import { SUBJECT_TOPICS_MASK, topicBit, topicsOf } from './topic.lexicon';

export type ItemStanding = 'authoritative' | 'corroborating' | 'contradicted' | 'disputed';

export interface ItemView {
  readonly id: string;
  readonly kind: 'fact' | 'evidence';
  readonly text: string;
  readonly standing: ItemStanding;
  readonly topics: number;
  /** States an absence or a denial ("no approval is recorded", "does not match"). */
  readonly negated: boolean;
  /** States a rule rather than a record ("refunds require approval"): not evidence of an event. */
  readonly requirement: boolean;
  readonly expired: boolean;
  readonly callback: boolean;
  readonly amounts: readonly Amount[];
  readonly accounts: readonly string[];
  readonly time?: TimeMention;
}

export interface AmountRule {
  readonly value: number;
  /** `max`: the action may not exceed it; `threshold`: above it, the policy's requirement applies. */
  readonly kind: 'max' | 'threshold';
}

export interface RuleView {
  readonly id: string;
  readonly origin: 'policy' | 'guidance';
  readonly title: string;
  readonly text: string;
  readonly topics: number;
  readonly forbids: boolean;
  readonly requiresApproval: boolean;
  readonly requiresCallback: boolean;
  /** The owner reserves the decision ("ask me first", "I will decide"): only the owner's approval satisfies it (§6). */
  readonly ownerDecides: boolean;
  readonly permits: boolean;
  /** Applies only to new or changed details ("never pay new accounts without a call-back"). */
  readonly aboutChange: boolean;
  readonly windowDays?: number;
  /** Applies only outside a window ("refunds outside the window require approval"), whose length may be elsewhere. */
  readonly outsideClause: boolean;
  readonly amountRule?: AmountRule;
}

export interface CaseView {
  readonly request: AnalysisRequest;
  /** Message and situation context, normalised together (one pass). */
  readonly said: NormalizedText;
  readonly cues: CueScanner;
  readonly proposedAction: string;
  readonly actionText: string;
  /** Topics of what is asked (message, context, proposed action). */
  readonly requestTopics: number;
  /** Topics of what the agent is there to do (goal, brief, proposed action). */
  readonly goalTopics: number;
  /** Topics of the goal and brief alone: what the agent's purpose needs, whatever action is proposed. */
  readonly purposeTopics: number;
  readonly goalText: string;
  readonly items: readonly ItemView[];
  readonly rules: readonly RuleView[];
  readonly referenceMs: number;
  /** Amounts in the message and context (positions in `said.text`). */
  readonly saidAmounts: readonly Amount[];
  /** Amounts in the message, context and proposed action. */
  readonly amounts: readonly Amount[];
  readonly accounts: readonly string[];
  readonly emails: readonly string[];
}

// IBAN (2 letters, 2 check digits, 11-30 alphanumerics, optionally in groups) and explicit account numbers.
// A rule that admits one path only ("only to listed adults", "nur über das Portal"); folded text.
const RESTRICTS_TO = /\b(?:only|solely|exclusively|nur|aus+chlies+lich|solo|unicamente|uniquement|seulement|exclusivement)\b/;
const IBAN = /\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,4})?\b/gi;
const ACCOUNT_NO = /\b(?:account|acct|konto|cuenta|compte)(?: number| no\.?| nr\.?| #|-?nummer| n[°º]| numero)?:? ?(\d[\d -]{5,24}\d)\b/gi;
// "the account ending 7723": only the last four digits are known.
// A card's last digits are another instrument, not a bank account: only an account's tail counts.
const ACCOUNT_TAIL = /\b(?:account ending(?: in)?|konto endet auf|cuenta terminada en|cuenta acabada en|compte se terminant par|compte finissant par) (\d{4})\b/gi;
const EMAIL = /[a-z0-9._%+-]{1,64}@[a-z0-9.-]{1,253}\.[a-z]{2,24}/gi;
const SPACES = /[\s-]/g;

/** Two account identifiers name the same account: equal, or one is the last four digits of the other. */
export function sameAccount(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length === 4 && long.endsWith(short);
}

export function accountsIn(original: string): string[] {
  const out: string[] = [];
  for (const m of original.matchAll(IBAN)) {
    const compact = m[0].replace(SPACES, '').toUpperCase();
    if (compact.length >= 15 && /\d{6}/.test(compact)) out.push(compact);
  }
  for (const m of original.matchAll(ACCOUNT_NO)) out.push((m[1] ?? '').replace(SPACES, ''));
  for (const m of original.matchAll(ACCOUNT_TAIL)) out.push(m[1] ?? '');
  return out;
}

function emailsIn(original: string): string[] {
  if (!original.includes('@')) return [];
  return [...original.matchAll(EMAIL)].map((m) => m[0].toLowerCase()).slice(0, 10);
}

// A review by a named function ("review by the legal department", "revisión del departamento jurídico") is a human
// decision the rule gates on, as an approval is.
const APPROVAL_WORD = /aprov|authori[sz]|genehmig|freigab|aprob|autoriz|aprouv|autoris|sign[- ]?of|\breview(?:ed)? by|\brevision (?:del?|por)|\bprufung durch/;
// Tested on normalised text, where doubled letters are single ("will" reads "wil").
const ASK_OWNER =
  /\b(?:ask|check with|consult|escalate to|talk to|ping) (?:me|the owner|your owner)\b|\bi(?:'l|'ll| wil| will) decide\b|\b(?:entscheide ich|ich entscheide|decido yo|yo decido|je deciderai|je decide)\b|\b(?:frag|fragen sie) (?:mich|den inhaber)\b|\b(?:preguntame|consultame|pregunteme|consulteme)\b|\b(?:demande|demandez|consulte|consultez)-moi\b/;
// Rule texts are folded (doubled letters collapse: "exceeding" reads "exceding"), so these patterns allow both spellings.
const CHANGE_WORD = /\b(?:new|changed|change|updated|dif+erent|neue|geandert|anderung|nuev|cambi|nouve|modifi|changement)\w*/;
const LIMIT_BEFORE = /(?:ceiling(?: is| of)?|cap(?: is| of)?|at most|obergrenze|tope|limite|up to|upto|max(?:imum)?|not exc+e+d|exc+e+ding|no more than|limit(?:ed)? (?:of|to)|under|below|bis zu|hochstens|maximal|hasta|no mas de|maximo|jusqu'a|pas plus de|plafond|plafon+e a)[^.]{0,20}$/;
const THRESHOLD_BEFORE = /(?:above|over|more than|exc+e+ds?|greater than|larger than|uber|mehr als|ab|mas de|superior(?:es)? a|a partir de|au-dela de|plus de|superieur(?:s|e|es)? a)[^.]{0,20}$/;

function ruleFrom(id: string, origin: RuleView['origin'], title: string, statement: string): RuleView {
  const text = foldText(`${title}. ${statement}`);
  // "Ask me first" in owner guidance (or "ask the owner" in a policy) is a required approval by the owner (§6).
  const askOwner = ASK_OWNER.test(text);
  // Each cue class is read once, though several fields depend on it.
  const forbid = itemHas(text, 'forbid');
  const requires = itemHas(text, 'requirement') || forbid || askOwner;
  const approval = APPROVAL_WORD.test(text) || askOwner;
  let amountRule: AmountRule | undefined;
  for (const amount of findAmounts(text)) {
    const before = text.slice(Math.max(0, amount.start - 40), amount.start);
    if (THRESHOLD_BEFORE.test(before) && (requires || approval)) amountRule = { value: amount.value, kind: approval ? 'threshold' : 'max' };
    else if (LIMIT_BEFORE.test(before)) amountRule = { value: amount.value, kind: approval && requires && !forbid ? 'threshold' : 'max' };
    if (amountRule) break;
  }
  const windowDays = findWindowDays(text);
  const topics = topicsOf(text);
  return {
    id,
    origin,
    title,
    text,
    topics,
    // "delivered only to the registered device" forbids every other way as surely as "never" does.
    forbids: forbid || RESTRICTS_TO.test(text),
    requiresApproval: approval && requires,
    requiresCallback: itemHas(text, 'callback') && (requires || origin === 'guidance'),
    ownerDecides: askOwner,
    permits: !forbid && itemHas(text, 'permission'),
    // "new accounts", "changed bank details": a rule about payee changes ("new access" is a request like any other).
    aboutChange: CHANGE_WORD.test(text) && (topics & (topicBit('bankDetails') | topicBit('payment'))) !== 0,
    outsideClause: itemHas(text, 'expired'),
    ...(windowDays !== undefined ? { windowDays } : {}),
    ...(amountRule ? { amountRule } : {}),
  };
}

function itemView(id: string, kind: ItemView['kind'], raw: string, standing: ItemStanding, referenceMs: number): ItemView {
  const text = foldText(raw);
  const time = findTimeMention(text, referenceMs);
  const expired = itemHas(text, 'expired');
  return {
    id,
    kind,
    text,
    standing,
    topics: topicsOf(text),
    negated: itemHas(text, 'negation'),
    requirement: !expired && itemHas(text, 'requirement'),
    expired,
    callback: itemHas(text, 'callback'),
    amounts: findAmounts(text),
    accounts: accountsIn(raw),
    ...(time ? { time } : {}),
  };
}

export function buildCaseView(request: AnalysisRequest): CaseView {
  const { caseRecord, consult } = request;
  const referenceMs = Date.parse(caseRecord.updatedAt);
  const combined = consult.situationContext ? `${consult.message}\n\n${consult.situationContext}` : consult.message;
  const said = normalizeText(combined);
  const proposedAction = consult.proposedAction?.trim() || caseRecord.proposedAction || '';
  const actionText = foldText(proposedAction);
  const goalText = foldText(`${caseRecord.goal} ${caseRecord.brief} ${proposedAction}`);

  const items: ItemView[] = [];
  for (const f of caseRecord.facts) {
    const standing: ItemStanding =
      f.status === 'contradicted' ? 'contradicted' : f.status === 'disputed' ? 'disputed' : f.status === 'verified' && f.source !== 'counterparty' ? 'authoritative' : 'corroborating';
    items.push(itemView(f.factId, 'fact', f.statement, standing, referenceMs));
  }
  for (const e of caseRecord.evidence) {
    const standing: ItemStanding =
      e.verification === 'contradicted' ? 'contradicted' : e.verification === 'verified' && e.type !== 'external_claim' ? 'authoritative' : 'corroborating';
    items.push(itemView(e.evidenceId, 'evidence', e.summary, standing, referenceMs));
  }
  const rules: RuleView[] = [
    ...caseRecord.policies.map((p) => ruleFrom(p.policyId, 'policy', p.title, p.statement)),
    ...caseRecord.ownerGuidance.map((g) => ruleFrom(g.guidanceId, 'guidance', 'Owner guidance', g.instruction)),
  ];
  const cues = new CueScanner(said);
  const saidAmounts = findAmounts(said.text);
  const accounts = accountsIn(combined);
  // An account number in the message makes it about bank details, whatever words surround it.
  const requestTopics =
    topicsOf(said.text) | (topicsOf(actionText) & SUBJECT_TOPICS_MASK) | (accounts.length > 0 ? topicBit('bankDetails') : 0);
  return {
    request,
    said,
    cues,
    proposedAction,
    actionText,
    requestTopics,
    goalTopics: topicsOf(goalText),
    purposeTopics: topicsOf(foldText(`${caseRecord.goal} ${caseRecord.brief}`)),
    goalText,
    items,
    rules,
    referenceMs,
    saidAmounts,
    amounts: [...saidAmounts, ...findAmounts(actionText)],
    accounts,
    emails: emailsIn(combined),
  };
}
