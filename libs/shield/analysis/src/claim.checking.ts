/**
 * Gives each extracted claim its SHIELD.md §9.4 status and its §9.2 significance by reading the case's facts and
 * evidence with the weight §9.4 gives them (`case.view.ts`):
 * - `contradicted`: an authoritative item conflicts, or an item marked contradicted asserts it; this includes a
 *   verified record that something a policy requires is absent ("no approval recorded" vs "a manager approved");
 * - `verified`: an authoritative item establishes it and none conflicts;
 * - `supported`: only corroborating items back it, or authoritative ones only indirectly;
 * - `unverified`: nothing in the case bears on it (a disputed fact alone leaves it here);
 * - `not_checkable`: promises and intentions, which no record can settle.
 * Items that state a rule ("refunds require approval") are not records of an event and neither back nor refute a
 * claim. Citations are item ids.
 */
import type { ClaimStatus, RiskTier } from '@trustmesh/shield-records';

import { findAmounts, sameAmount } from './amount.parser';
import type { CheckedClaim, ExtractedClaim } from './analysis.findings';
import { capitalisedWords, denies, folded, mentionsName, negatedMention, recordIds, sentenceText, sharedStems, stems } from './claim.anchors';
import { sameAccount, type CaseView, type ItemView, type RuleView } from './case.view';
import { itemHas } from './cue.patterns';
import { hasTopic, topicBit } from './topic.lexicon';

const DAMAGE = /damag|broken|defect|beschadig|kaput|defekt|danad|roto|endomag|case/;

type Bearing = 'supports' | 'conflicts' | 'indirect' | 'none';

const APPROVAL_TOPICS = topicBit('approval');
const IDENTITY_TOPICS = topicBit('identity') | topicBit('approval');
const IDENTITY_ONLY = topicBit('identity');
const BANK_TOPICS = topicBit('bankDetails');
const RECEIPT_TOPICS = topicBit('delivery');
const EVENT_TOPICS = topicBit('delivery') | topicBit('refund') | topicBit('payment');
const NEGOTIATED = topicBit('contract') | topicBit('discount');
const MONEY_MOVES = topicBit('payment') | topicBit('refund') | topicBit('bankDetails');
const CONSEQUENTIAL = topicBit('payment') | topicBit('refund') | topicBit('bankDetails') | topicBit('credentials') | topicBit('access') | topicBit('personalData');

function bearingOf(claim: ExtractedClaim, item: ItemView, view: CaseView, windowDays: number | undefined): Bearing {
  switch (claim.kind) {
    case 'approval':
    case 'authority': {
      if (!(item.topics & (claim.kind === 'approval' ? APPROVAL_TOPICS : IDENTITY_TOPICS))) return 'none';
      // A record that the approval is absent refutes the claim whatever its wording; a record of some approval backs
      // it only when it is about the same thing (shares a word or a name with the claim's sentence).
      if (item.negated) return 'conflicts';
      if (item.requirement) return 'none';
      return !claim.sentence || sharedStems(stems(sentenceText(claim.sentence)), item.text).length > 0 ? 'supports' : 'none';
    }
    case 'identity':
    case 'owner': {
      // A record that nobody of that name exists refutes the claim; a directory entry for the name does not prove
      // that the sender is that person, so a plain mention neither supports nor conflicts.
      if (claim.sentence && capitalisedWords(claim.sentence.original).some((n) => mentionsName(item.text, n) && negatedMention(item.text, folded(n)))) return 'conflicts';
      // Only identity records and call-backs bear on who the sender is (an approval record does not).
      if (!(item.topics & IDENTITY_ONLY) && !item.callback) return 'none';
      if (item.negated) return 'conflicts';
      return item.requirement ? 'none' : 'supports';
    }
    case 'account': {
      if (claim.account && item.accounts.length > 0) {
        // The same account on record supports the claim ("IBAN ..., unchanged since 2021" is no denial of it).
        if (item.accounts.some((a) => sameAccount(a, claim.account ?? ''))) return 'supports';
        // A changed account differs from the old record by definition: that record neither backs nor refutes the
        // change; only a record that the details did not change (or a call-back saying so) conflicts with it.
        if (claim.change) return item.negated && item.callback ? 'conflicts' : 'none';
        return 'conflicts';
      }
      // A new contact detail the records already show ("new email confirmed by a link") is established.
      if (claim.change && !claim.account && !item.negated && !item.requirement && itemHas(item.text, 'changedDetails')) return 'supports';
      if (!(item.topics & BANK_TOPICS)) return 'none';
      if (item.negated) return 'conflicts';
      if (item.callback && !item.requirement) return 'supports';
      return 'none';
    }
    case 'amount': {
      const value = claim.amount?.value ?? 0;
      const currency = claim.amount?.currency;
      // Only sums of money compare with a sum of money: a date or a count in the item is no amount.
      const amounts = currency ? item.amounts.filter((a) => a.currency !== undefined) : item.amounts;
      if (amounts.length === 0) return 'none';
      if (amounts.some((a) => sameAmount(a.value, value))) return item.negated ? 'conflicts' : 'supports';
      if (item.requirement) return 'none';
      // The item must be about the same matter: a shared topic, or the record the request names ("claim S-120").
      if ((item.topics & view.requestTopics) === 0 && !sharesRecordId(item, view)) return 'none';
      return amounts.every((a) => value > a.value) ? 'conflicts' : 'indirect';
    }
    case 'date': {
      if (!claim.time) return 'none';
      if (item.expired && !item.requirement && windowDays !== undefined) return claim.time.daysAgo > windowDays ? 'indirect' : 'conflicts';
      if (item.time && item.topics & EVENT_TOPICS) {
        const gap = Math.abs(item.time.daysAgo - claim.time.daysAgo);
        return gap <= 1 ? 'supports' : gap > 3 ? 'conflicts' : 'none';
      }
      return 'none';
    }
    case 'receipt': {
      if (claim.damaged) return DAMAGE.test(item.text) && !item.requirement ? (item.negated ? 'conflicts' : 'supports') : 'none';
      if (!(item.topics & RECEIPT_TOPICS)) return 'none';
      // The claim is a denial ("never arrived"): a record of delivery conflicts, a record of loss supports.
      return item.negated ? 'supports' : item.requirement ? 'none' : 'conflicts';
    }
    case 'reference':
    case 'event':
    case 'policy':
      return statementBearing(claim, item);
    default:
      return 'none';
  }
}

/** Whether the item names a record id that the message or the proposed action names too. */
function sharesRecordId(item: ItemView, view: CaseView): boolean {
  return recordIds(`${view.actionText} ${view.said.text}`).some((id) => item.text.includes(id));
}

// A figure with its unit ("48 hours", "30 %"): two statements about the same record disagree when the units match and
// the figures do not.
const QUANTITY = /(\d+(?:[.,]\d+)?) ?(hours?|hrs|stunden|horas|heures|days|tage|dias|jours|units|stuck|unidades|unites|%)/g;

function quantities(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of text.matchAll(QUANTITY)) {
    const unit = (m[2] ?? '').replace(/s$/, '');
    let set = out.get(unit);
    if (!set) out.set(unit, (set = new Set()));
    set.add((m[1] ?? '').replace(',', '.'));
  }
  return out;
}

/**
 * Sums of money (with a currency) in a statement and in an item about it: a figure the item does not show conflicts.
 * People round in passing ("about 38 €" for 38.40), so a figure within a unit of a recorded one still matches.
 */
function moneyConflict(sentence: string, item: ItemView): boolean {
  const stated = findAmounts(sentence).filter((a) => a.currency !== undefined);
  const recorded = item.amounts.filter((a) => a.currency !== undefined);
  return stated.length > 0 && recorded.length > 0 && !stated.some((a) => recorded.some((r) => Math.abs(r.value - a.value) < 1));
}

function quantityConflict(sentence: string, item: string): boolean {
  const stated = quantities(sentence);
  if (stated.size === 0) return false;
  const recorded = quantities(item);
  for (const [unit, values] of stated) {
    const known = recorded.get(unit);
    if (known && [...values].some((v) => !known.has(v))) return true;
  }
  return false;
}

/**
 * How an item bears on a statement the counterparty makes about a record (by id or name) or an event: the item must
 * name the same record, or share at least two content words with the sentence; it conflicts when one side denies what
 * the other asserts ("the card was never used" vs "used in full on 3 November"; "invoice LC-5531 is outstanding" vs
 * "no invoice LC-5531 is registered"), or when it records different figures for the same record.
 */
function statementBearing(claim: ExtractedClaim, item: ItemView): Bearing {
  const sentence = claim.sentence;
  if (!sentence) return 'none';
  const text = sentenceText(sentence);
  if (claim.anchor) {
    const needle = folded(claim.anchor);
    const isId = /\d/.test(claim.anchor);
    if (!(isId ? item.text.includes(needle) : mentionsName(item.text, claim.anchor))) return 'none';
    const itemDenies = negatedMention(item.text, needle) || denies(item.text);
    if (itemDenies !== denies(text)) return 'conflicts';
    if (quantityConflict(text, item.text)) return 'conflicts';
    // A record id names one record; a first name only shows the item may be about the same person (a directory entry,
    // a contact card): it backs what the sentence says of that person only when the item also has the person's other
    // names (the full name) or shares what was said of them.
    if (isId) return 'supports';
    const names = capitalisedWords(sentence.original).filter((n) => n !== claim.anchor);
    if (names.some((n) => mentionsName(item.text, n))) return 'supports';
    const said = [...stems(text)].filter((s) => !needle.includes(s));
    return sharedStems(new Set(said), item.text).length > 0 ? 'supports' : 'none';
  }
  const shared = sharedStems(stems(text), item.text);
  if (shared.length < 2) return 'none';
  const itemDenies = shared.some((s) => negatedMention(item.text, s));
  if (itemDenies !== denies(text) || moneyConflict(text, item)) return 'conflicts';
  return 'supports';
}

export interface ClaimContext {
  /** Relevant rules requiring approval or a call-back (their ids). */
  readonly gatingRules: readonly RuleView[];
  /** The request breaks a relevant amount limit or window. */
  readonly overLimit: boolean;
  readonly windowPolicy: boolean;
  readonly windowDays?: number;
  /** A relevant rule is restrictive and was broken (for claims about what policy allows). */
  readonly brokenRuleIds: readonly string[];
  readonly relevantRuleIds: readonly string[];
}

function significanceOf(claim: ExtractedClaim, view: CaseView, ctx: ClaimContext): RiskTier {
  const consequential = (view.requestTopics & CONSEQUENTIAL) !== 0;
  switch (claim.kind) {
    case 'account':
    case 'owner':
      return 'critical';
    case 'approval':
      // An approval decides whether to act when a rule gates the action, or money, data, access or terms are at stake.
      return ctx.gatingRules.length > 0 ? 'critical' : consequential || (view.requestTopics & NEGOTIATED) !== 0 || view.amounts.length > 0 ? 'high' : 'medium';
    case 'authority':
      return consequential ? 'high' : 'medium';
    case 'identity':
      return hasTopic(view.requestTopics, 'bankDetails') ? 'critical' : consequential ? 'high' : 'medium';
    case 'policy':
      return 'high';
    case 'amount':
      // Money leaving to the counterparty: a sizeable amount decides whether to act (§9.2 high).
      return ctx.overLimit || (claim.amount?.value ?? 0) >= 10_000 || ((view.requestTopics & MONEY_MOVES) !== 0 && (claim.amount?.value ?? 0) >= 1_000) ? 'high' : 'medium';
    case 'date':
      return ctx.windowPolicy ? 'high' : 'medium';
    case 'receipt':
      return hasTopic(view.requestTopics, 'refund') ? 'high' : 'medium';
    default:
      return 'low';
  }
}

const NOT_CHECKABLE_EXPLANATION = 'A promise or intention about the future: no record the agent or owner can reach settles it.';

export function checkClaim(claim: ExtractedClaim, view: CaseView, ctx: ClaimContext): CheckedClaim {
  const significance = significanceOf(claim, view, ctx);
  if (claim.kind === 'amount' && (view.requestTopics & MONEY_MOVES) === 0) {
    return {
      ...claim,
      status: 'not_checkable',
      significance: 'low',
      evidenceReferences: [],
      explanation: 'A figure proposed in a negotiation, not an assertion of fact that a record could settle.',
    };
  }
  if (claim.kind === 'reason') {
    return { ...claim, status: 'not_checkable', significance: 'low', evidenceReferences: [], explanation: "A reason internal to the counterparty's own business: no record the agent or owner can reach settles it." };
  }
  if (claim.kind === 'promise') return { ...claim, status: 'not_checkable', significance, evidenceReferences: [], explanation: NOT_CHECKABLE_EXPLANATION };

  const authConflict: string[] = [];
  const markedFalse: string[] = [];
  const authSupport: string[] = [];
  const corroboration: string[] = [];
  const indirect: string[] = [];
  for (const item of view.items) {
    const bearing = bearingOf(claim, item, view, ctx.windowDays);
    if (bearing === 'none') continue;
    if (item.standing === 'authoritative') {
      if (bearing === 'conflicts') authConflict.push(item.id);
      else if (bearing === 'supports') authSupport.push(item.id);
      else indirect.push(item.id);
    } else if (item.standing === 'contradicted') {
      if (bearing === 'supports') markedFalse.push(item.id);
    } else if (item.standing === 'corroborating' && bearing === 'supports') {
      corroboration.push(item.id);
    }
  }

  // A statement about what the rules allow is settled by a record of the agreement it names, else by the policies.
  if (claim.kind === 'policy' && authConflict.length === 0 && authSupport.length === 0) return checkPolicyClaim(claim, significance, ctx);

  let status: ClaimStatus;
  let refs: string[];
  let explanation: string;
  if (authConflict.length > 0 || markedFalse.length > 0) {
    status = 'contradicted';
    refs = [...authConflict, ...markedFalse];
    explanation =
      authConflict.length > 0
        ? claim.kind === 'approval' && ctx.gatingRules.length > 0
          ? 'A verified record shows the approval the policy requires is absent, or conflicts with the claim.'
          : 'A verified record in the case conflicts with this claim.'
        : 'A case item asserting this is marked contradicted.';
  } else if (authSupport.length > 0) {
    status = 'verified';
    refs = authSupport;
    explanation = 'A verified record in the case establishes this and none conflicts.';
  } else if (corroboration.length > 0 || indirect.length > 0) {
    status = 'supported';
    refs = [...corroboration, ...indirect];
    explanation =
      corroboration.length > 0
        ? 'Only unverified or counterparty-supplied items back this; nothing conflicts.'
        : 'Verified records back this only indirectly (the amount is within what they show); nothing conflicts.';
  } else {
    status = 'unverified';
    refs = [];
    explanation =
      claim.kind === 'owner'
        ? "Owner guidance reaches the Shield only through the owner's own channel; a message claiming to be the owner is not guidance, and nothing in the case confirms it."
        : 'Nothing in the case bears on this: it rests on the counterparty\'s word.';
  }
  return { ...claim, status, significance: statementSignificance(claim, status, significance), evidenceReferences: refs.slice(0, 20), explanation };
}

/**
 * A statement about a record or an event matters as much as what it settles: a refuted one decides whether the
 * action is safe (§9.2 high); otherwise it is peripheral, since the request's material claims (amounts, approvals,
 * payees, identities) are checked on their own.
 */
function statementSignificance(claim: ExtractedClaim, status: ClaimStatus, significance: RiskTier): RiskTier {
  if (claim.kind !== 'reference' && claim.kind !== 'event') return significance;
  if (status === 'contradicted') return 'high';
  return 'low';
}

function checkPolicyClaim(claim: ExtractedClaim, significance: RiskTier, ctx: ClaimContext): CheckedClaim {
  if (ctx.brokenRuleIds.length > 0) {
    return {
      ...claim,
      status: 'contradicted',
      significance,
      evidenceReferences: ctx.brokenRuleIds.slice(0, 20),
      explanation: "The case's own policy does not allow the request as stated.",
    };
  }
  if (ctx.relevantRuleIds.length > 0) {
    return {
      ...claim,
      status: 'supported',
      significance,
      evidenceReferences: ctx.relevantRuleIds.slice(0, 20),
      explanation: "The case's policies on this subject do not conflict with the request as far as the case shows.",
    };
  }
  return { ...claim, status: 'unverified', significance, evidenceReferences: [], explanation: 'The case holds no policy on this subject to check the statement against.' };
}
