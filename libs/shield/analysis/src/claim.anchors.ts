/**
 * What makes a claim recognisable and checkable (SHIELD.md §9.4): the sentence it was found in, and the anchors that
 * tie it to case items — record ids ("ACC-4410", "W-4"), names, and content words shared with a fact or evidence item.
 *
 * A claim's text carries a short excerpt of its own sentence (§12: a short cue, never the message wholesale; long
 * digit runs such as account numbers are masked), so that a reader sees which assertion it is. Checking uses the same
 * anchors: an item that names the same record, or shares enough content words with the sentence, bears on the claim;
 * whether it supports or conflicts depends on which side denies what the other asserts.
 */
import { foldText } from './text.normalizer';

// The analysis may quote a short cue, never the message (§12): eight words at most, as for signals.
const MAX_EXCERPT_WORDS = 8;
const MAX_TERMS = 8;
const FIGURE = /\b\d+(?:[.,]\d+)?\b/g;
/** `.`, `!`, `?` or a line feed ends a sentence (a character test, not a regex, per character scanned). */
function isSentenceBreak(code: number): boolean {
  return code === 46 || code === 33 || code === 63 || code === 10;
}

/** A break at `i` ends a sentence, except a dot inside a record id, an amount ("8.80") or an address ("shop.example.com"). */
function endsSentence(original: string, i: number): boolean {
  if (!isSentenceBreak(original.charCodeAt(i))) return false;
  return original.charAt(i) !== '.' || !/[\p{L}\d]/u.test(original.charAt(i + 1));
}
// Record ids: a short prefix, a dash, then a digit ("ACC-4410", "GC-5573-8841", "W-4", "SOW-12"); or numbered files
// with a series ("24-118837", "412/2026"), told from a month and year ("11/2026") by the length of their parts.
const RECORD_ID = /\b[A-Za-z]{1,6}-\d[A-Za-z0-9-]*\b|\b(?:\d{3,6}[-/]\d{4,8}|\d{2}[-/]\d{5,8})\b(?![-/.,]\d)/g;
// A capitalised word inside a sentence: a name, a place, a month, a product.
const CAPITALISED = /(?<=[\s(,;:"'«])\p{Lu}[\p{L}']*\p{Ll}[\p{L}']*(?![\p{L}'-]*\d)/gu;
const LONG_DIGITS = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b|\d[\d ]{6,}\d/g;
const STEM_LENGTH = 5;
// Content words, and figures of three digits or more (an amount or a year ties a sentence to a record as well).
const WORD = /[a-z]{5,}|\b\d{3,}\b/g;
// Words too common to tie a sentence to an item.
const COMMON = new Set([
  'about', 'after', 'again', 'already', 'also', 'because', 'before', 'could', 'every', 'hello', 'please', 'should', 'since',
  'thank', 'thanks', 'their', 'there', 'these', 'those', 'today', 'under', 'until', 'where', 'which', 'while', 'would',
  'right', 'still', 'other', 'first', 'their', 'being', 'bitte', 'danke', 'diese', 'dieser', 'heute', 'nicht', 'schon',
  'gracias', 'porque', 'desde', 'hasta', 'ahora', 'nuestro', 'nuestra', 'vuestro', 'merci', 'notre', 'votre', 'depuis',
  'toujours', 'aujourd', 'avons', 'cette', 'mucho', 'quick', 'really', 'think', 'would', 'unser', 'unsere', 'ihrer',
]);
// Denials of an existence or a state ("never used", "does not work", "no invoice ... is registered"), in folded text
// where doubled letters collapse ("arrived" reads "arived").
const DENIAL =
  /\b(?:never|not|nie|nunca|jamais|n'a jamais|ne)\b[^.;]{0,24}\b(?:used|ar+ived|received|delivered|worked|served|servi|utilise|recu|livre|ar+ive|benutzt|erhalten|geliefert|angekom+en|usad\w*|recibid\w*|l+eg\w*|entregad\w*|registered|recorded|registriert|registrad\w*|enregistre\w*)|\b(?:doesn'?t|does not|isn'?t|is not|won'?t) work|\bne fonction+e (?:pas|plus)\b|\bfunktioniert nicht\b|\bno funciona\b/;
const NEGATION_BEFORE = /\b(?:no|not|none|never|without|kein\w*|nicht|niemand(?: namens)?|ningun\w*|ninguna|sin|aucun\w*|pas de|sans|ni)\s(?:[\p{L}\d-]+\s){0,2}$/u;

export interface Sentence {
  /** Start and end in the original text. */
  readonly start: number;
  readonly end: number;
  readonly original: string;
}

/** The normalised (lower case, folded) text of a sentence, computed only for the claims that are checked by it. */
export function sentenceText(sentence: Sentence): string {
  return folded(sentence.original);
}

/** The sentence of `original` around `index`. */
export function sentenceAt(original: string, index: number): Sentence {
  let start = Math.max(0, Math.min(index, original.length));
  while (start > 0 && !endsSentence(original, start - 1)) start--;
  let end = Math.max(start, Math.min(index, original.length));
  while (end < original.length && !endsSentence(original, end)) end++;
  return { start, end, original: original.slice(start, end) };
}

/**
 * Up to eight words of the sentence around `index` in double quotes (long digit runs masked), followed by the
 * sentence's other names, record ids and figures, unquoted: what makes the assertion recognisable without repeating it.
 */
export function excerpt(sentence: Sentence, index: number): string {
  const masked = maskedText(sentence);
  const words = masked.trim().split(/\s+/);
  let quote: string;
  if (words.length <= MAX_EXCERPT_WORDS) quote = words.join(' ');
  else {
    const offset = Math.max(0, index - sentence.start);
    const before = sentence.original.slice(0, offset).trim().split(/\s+/).length - 1;
    const from = Math.max(0, Math.min(before - 2, words.length - MAX_EXCERPT_WORDS));
    quote = words.slice(from, from + MAX_EXCERPT_WORDS).join(' ');
  }
  const terms = termsOf(masked).filter((term) => !quote.includes(term));
  return terms.length > 0 ? `"${quote}" (${terms.slice(0, MAX_TERMS).join(', ')})` : `"${quote}"`;
}

/** A sentence's anchors: the record ids, names and figures it states (long digit runs masked), at most a few. */
export function anchorTerms(sentence: Sentence): string[] {
  return termsOf(maskedText(sentence)).slice(0, MAX_TERMS * 2);
}

/** The sentence as it may be quoted: long digit runs masked, double quotes made single. */
function maskedText(sentence: Sentence): string {
  return sentence.original.replace(LONG_DIGITS, '[number]').replace(/"/g, "'");
}

function termsOf(masked: string): string[] {
  const terms = [...recordIds(masked), ...capitalisedWords(masked), ...[...masked.matchAll(FIGURE)].map((m) => m[0])];
  return terms.filter((term, i, all) => all.indexOf(term) === i);
}

export function recordIds(original: string): string[] {
  return [...new Set([...original.matchAll(RECORD_ID)].map((m) => m[0]))];
}

/** Capitalised words that are not the first word of their sentence. */
export function capitalisedWords(original: string): string[] {
  const names = new Set<string>();
  const grammar = new Set<string>();
  for (const m of original.matchAll(CAPITALISED)) {
    const word = m[0];
    if (names.has(word)) continue;
    if (!opensSentence(original, m.index)) names.add(word);
    // Each distinct word is looked up in lower case once, however often it opens a sentence.
    else if (!grammar.has(word)) (writtenLowerCase(original, word) ? grammar : names).add(word);
  }
  return [...names];
}

/**
 * Whether the text also writes the word in lower case ("The desks ... the chairs"): then a capital at the start of a
 * sentence is grammar, not a name; a name ("Bernard signed ...") keeps its capital wherever it appears.
 */
function writtenLowerCase(original: string, word: string): boolean {
  const lower = word.toLowerCase();
  for (let at = original.indexOf(lower); at >= 0; at = original.indexOf(lower, at + 1)) {
    const before = original.charAt(at - 1);
    const after = original.charAt(at + lower.length);
    if (!/\p{L}/u.test(before) && !/\p{L}/u.test(after)) return true;
  }
  return false;
}

/** Whether the word at `index` is the first of a sentence or line ("Thanks. The desks ..."): capitalised by grammar. */
function opensSentence(original: string, index: number): boolean {
  let i = index - 1;
  while (i >= 0 && (original.charAt(i) === ' ' || original.charAt(i) === '\t')) i--;
  return i < 0 || endsSentence(original, i);
}

// Within one analysis, item texts are compared with every claim and sentences are shared by several claims: stems and
// folded texts are memoised for that analysis only (`startAnchorMemo` clears them), so nothing carries over between
// analyses and the results stay pure functions of their input.
const MEMO_LIMIT = 512;
const stemMemo = new Map<string, Set<string>>();
const foldMemo = new Map<string, string>();

function memo<T>(cache: Map<string, T>, key: string, compute: () => T): T {
  const known = cache.get(key);
  if (known !== undefined) return known;
  if (cache.size >= MEMO_LIMIT) cache.clear();
  const value = compute();
  cache.set(key, value);
  return value;
}

/** Starts a fresh memo for one analysis. */
export function startAnchorMemo(): void {
  stemMemo.clear();
  foldMemo.clear();
}

/** The normalised form of a short string (a name, an id), memoised. */
export function folded(text: string): string {
  return memo(foldMemo, text, () => foldText(text));
}

/** Content-word stems of a normalised text (first five letters of words of five letters or more). */
export function stems(text: string): Set<string> {
  return memo(stemMemo, text, () => {
    const out = new Set<string>();
    for (const m of text.matchAll(WORD)) if (!COMMON.has(m[0])) out.add(m[0].slice(0, STEM_LENGTH));
    return out;
  });
}

export function sharedStems(a: ReadonlySet<string>, text: string): string[] {
  const out: string[] = [];
  for (const s of stems(text)) if (a.has(s)) out.push(s);
  return out;
}

/** Whether the normalised text denies an existence or a working state. */
export function denies(text: string): boolean {
  return DENIAL.test(text);
}

/** Whether `needle` (normalised) occurs in `text` right after a negation ("no invoice LC-5531", "niemand namens X"). */
export function negatedMention(text: string, needle: string): boolean {
  let from = text.indexOf(needle);
  while (from >= 0) {
    if (NEGATION_BEFORE.test(text.slice(Math.max(0, from - 40), from))) return true;
    from = text.indexOf(needle, from + needle.length);
  }
  return false;
}

/** Whether `text` (normalised) mentions the name as a word, not inside an e-mail address. */
export function mentionsName(text: string, name: string): boolean {
  const n = folded(name);
  if (n.length < 3) return false;
  let from = text.indexOf(n);
  while (from >= 0) {
    const before = text.charAt(from - 1);
    const after = text.charAt(from + n.length);
    if (!/[a-z0-9]/.test(before) && !/[a-z0-9@]/.test(after) && !(after === '.' && /[a-z]/.test(text.charAt(from + n.length + 1)))) return true;
    from = text.indexOf(n, from + 1);
  }
  return false;
}
