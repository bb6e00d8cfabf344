/**
 * Finds the material claims in what the counterparty said (SHIELD.md §9.4: "a material assertion, mostly the
 * counterparty's, on which the action depends"): amounts, when something happened, who the sender is, approvals,
 * authority, payment destinations, what policy allows, delivery, claims to be the owner (§6), records the message
 * refers to by id or name, events it reports ("I'm locked out", "the jar has a crack"), and promises, forecasts or
 * private reasons (which no record can settle: `not_checkable`).
 *
 * Each claim's text states the kind of assertion and carries a short excerpt of the sentence it was found in, with its
 * names, ids and figures (§12: a short excerpt, never the message; long digit runs masked), so that a reader knows
 * which assertion it is; the sentence also travels with the claim for checking (`claim.checking.ts`).
 */
import { formatAmount, sameAmount } from './amount.parser';
import type { ExtractedClaim } from './analysis.findings';
import { anchorTerms, capitalisedWords, excerpt, folded, recordIds, sentenceAt, stems, type Sentence } from './claim.anchors';
import type { CaseView } from './case.view';
import type { CueHit } from './cue.patterns';
import { findTimeMention } from './time.parser';

const DAMAGE = /damag|broken|defect|beschadig|kaput|defekt|danad|roto|endomag|case/;
const IBAN_HEAD = /^[a-z]{2}\d{2}/i;
const MAX_REFERENCES = 4;
const MAX_NAMED = 2;
const MAX_NAME_CANDIDATES = 12;
const MAX_STATEMENTS = 4;
const MAX_SENTENCES_SCANNED = 40;
// A statement worth checking has at least this many words; shorter lines are greetings, sign-offs or headers.
const MIN_STATEMENT_WORDS = 4;
const MAX_STATEMENT_ANCHORS = 4;

/**
 * An account as a reader can recognise it without the record holding it in full: an IBAN keeps its country and check
 * digits ("DE44… ending 2931", which tell the bank's country and nothing secret), any other number only its last
 * four. Later consultations read the "ending" tail back (`tactic.detection.ts`).
 */
function masked(account: string): string {
  const tail = `ending ${account.slice(-4)}`;
  return account.length > 8 && IBAN_HEAD.test(account) ? `${account.slice(0, 4).toUpperCase()}… ${tail}` : tail;
}

export function extractClaims(view: CaseView): ExtractedClaim[] {
  const { cues } = view;
  const original = view.said.original;
  const messageEnd = view.request.consult.message.length;
  const claims: ExtractedClaim[] = [];
  const usedSentences = new Set<number>();

  /** The sentence of a cue hit (normalised index), remembered so that name references do not repeat it. */
  const sentenceOf = (hit: CueHit): Sentence => {
    const at = view.said.map[Math.min(hit.index, view.said.map.length - 1)] ?? 0;
    const sentence = sentenceAt(original, at);
    usedSentences.add(sentence.start);
    return sentence;
  };
  const located = (hit: CueHit) => {
    const sentence = sentenceOf(hit);
    const at = view.said.map[Math.min(hit.index, view.said.map.length - 1)] ?? sentence.start;
    return { sentence, words: excerpt(sentence, at) };
  };

  const owner = cues.find('ownerClaim');
  if (owner) {
    const { sentence, words } = located(owner);
    claims.push({ kind: 'owner', claim: `The sender claims to be the agent's owner or operator: ${words}.`, sentence });
  }

  const changed = cues.find('changedDetails');
  const newAccount = view.accounts.find((a) => !view.items.some((i) => i.accounts.includes(a)));
  if (changed || view.accounts.length > 0) {
    const account = newAccount ?? view.accounts[0];
    const where = account ? ` (account ${masked(account)})` : '';
    const at = changed ? undefined : account ? original.indexOf(account.slice(0, 4)) : -1;
    const place = changed ? located(changed) : at !== undefined && at >= 0 ? { sentence: sentenceAt(original, at), words: excerpt(sentenceAt(original, at), at) } : undefined;
    claims.push({
      kind: 'account',
      claim: changed
        ? `The counterparty says its bank, payment or contact details have changed${where}: ${place?.words ?? changed.quote}.`
        : `The counterparty names the bank account to use${where}${place ? `: ${place.words}` : ''}.`,
      ...(account ? { account } : {}),
      ...(place ? { sentence: place.sentence } : {}),
      change: changed !== undefined,
    });
  }

  const approval = cues.find('approvalClaim');
  const figure = cues.find('authorityFigure');
  const act = figure ? cues.find('authorityAct') : undefined;
  if (approval) {
    const { sentence, words } = located(approval);
    claims.push({ kind: 'approval', claim: `The counterparty says the request was approved or agreed: ${words}.`, sentence });
  } else if (figure && act) {
    const { sentence, words } = located(figure);
    claims.push({ kind: 'authority', claim: `The request invokes someone with authority who supposedly approved or asked for it: ${words}.`, sentence });
  }

  const identity = cues.find('identityClaim');
  if (identity) {
    const { sentence, words } = located(identity);
    claims.push({ kind: 'identity', claim: `The sender states who they are or whom they represent: ${words}.`, sentence });
  }

  const policy = cues.find('policyClaim');
  if (policy) {
    const { sentence, words } = located(policy);
    claims.push({ kind: 'policy', claim: `The counterparty says the rules or an agreement allow or entitle the request: ${words}.`, sentence });
  }

  const notReceived = cues.find('notReceived');
  if (notReceived) {
    const damaged = DAMAGE.test(view.said.text.slice(notReceived.index, notReceived.end));
    const { sentence, words } = located(notReceived);
    claims.push({
      kind: 'receipt',
      claim: damaged ? `The counterparty says the goods arrived damaged: ${words}.` : `The counterparty says the goods or service never arrived: ${words}.`,
      damaged,
      sentence,
    });
  }

  const purchase = cues.find('purchaseEvent');
  if (purchase) {
    const tail = view.said.text.slice(purchase.index, purchase.index + 80);
    const time = findTimeMention(tail, view.referenceMs) ?? findTimeMention(view.said.text.slice(Math.max(0, purchase.index - 60), purchase.index), view.referenceMs);
    if (time) {
      const { sentence, words } = located(purchase);
      claims.push({
        kind: 'date',
        claim: `The counterparty dates the purchase or delivery about ${Math.max(0, time.daysAgo)} day(s) before this consultation: ${words}.`,
        time,
        sentence,
      });
    }
  }

  const event = cues.find('eventClaim') ?? cues.find('loyalty');
  if (event) {
    const { sentence, words } = located(event);
    claims.push({ kind: 'event', claim: `The counterparty reports a fact about what happened: ${words}.`, sentence });
  }

  const seen: number[] = [];
  for (const amount of view.amounts) {
    if (seen.some((v) => sameAmount(v, amount.value))) continue;
    seen.push(amount.value);
    const at = view.said.map[Math.min(amount.start, view.said.map.length - 1)];
    const said = view.saidAmounts.includes(amount);
    const where = said && at !== undefined ? excerpt(sentenceAt(original, at), at) : undefined;
    claims.push({ kind: 'amount', claim: `The amount involved is ${formatAmount(amount, false)}${where ? `: ${where}` : ''}.`, amount });
    if (seen.length >= 3) break;
  }

  const promise = cues.find('promise');
  if (promise) {
    const { sentence, words } = located(promise);
    claims.push({ kind: 'promise', claim: `The counterparty promises, forecasts or announces something in the future: ${words}.`, sentence });
  }
  const reason = cues.find('privateReason');
  if (reason) {
    const { sentence, words } = located(reason);
    claims.push({ kind: 'reason', claim: `The counterparty gives a reason internal to its own business: ${words}.`, sentence });
  }

  // Records the message names by id, and names the case's items also mention: checkable against those items.
  const message = original.slice(0, messageEnd);
  for (const id of recordIds(message).slice(0, MAX_REFERENCES)) {
    const at = message.indexOf(id);
    const sentence = sentenceAt(original, at);
    claims.push({ kind: 'reference', claim: `The counterparty refers to record ${id}: ${excerpt(sentence, at)}.`, sentence, anchor: id });
  }
  let named = 0;
  // Only the first few capitalised words are tried (German capitalises every noun; the work stays bounded).
  for (const name of capitalisedWords(message).slice(0, MAX_NAME_CANDIDATES)) {
    if (named >= MAX_NAMED) break;
    const at = message.indexOf(name);
    const sentence = sentenceAt(original, at);
    if (usedSentences.has(sentence.start)) continue;
    const needle = folded(name);
    if (!view.items.some((i) => i.text.includes(needle))) continue;
    usedSentences.add(sentence.start);
    named++;
    claims.push({ kind: 'reference', claim: `The counterparty mentions ${name}: ${excerpt(sentence, at)}.`, sentence, anchor: name });
  }

  claims.push(...remainingStatements(message, usedSentences, view.items));
  return claims;
}

/**
 * The message's other assertions: §9.4 asks for every material assertion, and one message often makes several of the
 * same kind ("step 1 is covered, step 2 is covered too") while the cues above take the first of each kind. Each
 * remaining sentence that states something (not a question, not a one-line greeting) becomes a statement checked by
 * the words and figures it shares with the case's items (`statementBearing`), so that a second assertion is confirmed
 * or refuted on its own instead of being lost. Bounded in sentences scanned and claims made. Named by the ids, names
 * and figures it states, not quoted (§12: an analysis quotes a short cue, never the message wholesale).
 */
function remainingStatements(message: string, usedSentences: Set<number>, items: CaseView['items']): ExtractedClaim[] {
  const out: ExtractedClaim[] = [];
  let itemStems: Set<string> | undefined;
  let at = 0;
  for (let scanned = 0; at < message.length && scanned < MAX_SENTENCES_SCANNED && out.length < MAX_STATEMENTS; scanned++) {
    const sentence = sentenceAt(message, at);
    at = sentence.end + 1;
    const text = sentence.original.trim();
    if (usedSentences.has(sentence.start) || text.length === 0) continue;
    if (message.charAt(sentence.end) === '?' || text.split(/\s+/).length < MIN_STATEMENT_WORDS) continue;
    // §12: a statement is named by its anchors (ids, names, figures), never quoted: quoting every remaining
    // sentence would keep most of a short message.
    // Without one, the words it shares with the case's items (what a record could settle it by).
    let anchors = anchorTerms(sentence);
    if (anchors.length === 0) {
      itemStems ??= new Set(items.flatMap((item) => [...stems(item.text)]));
      anchors = sharedWords(sentence.original, itemStems);
    }
    if (anchors.length === 0) continue;
    usedSentences.add(sentence.start);
    out.push({ kind: 'event', claim: `The counterparty states something about ${anchors.slice(0, MAX_STATEMENT_ANCHORS).join(', ')}.`, sentence });
  }
  return out;
}

/** The sentence's content words (in its own spelling) whose stems some case item also has, at most a few. */
function sharedWords(original: string, itemStems: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const [word] of original.matchAll(/\p{L}{5,}/gu)) {
    const stem = [...stems(folded(word))][0];
    if (stem !== undefined && itemStems.has(stem) && !out.includes(word)) out.push(word);
    if (out.length === MAX_STATEMENT_ANCHORS) break;
  }
  return out;
}
