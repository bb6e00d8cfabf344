/**
 * One normalisation pass per text, so that the cue lexicons match what a message says rather than how it is typed
 * (issue 9, "Analysis": typos, mixed case, accents, leetspeak; SHIELD.md §9.5 "a cue alone is not enough" is the
 * detectors' job, finding the cue despite its spelling is this file's).
 *
 * The normalised form is lower case, without diacritics (é → e, ß → ss), with common homoglyphs folded to Latin,
 * zero-width characters dropped, whitespace collapsed to one space, and every run of one repeated letter collapsed to a
 * single letter ("urgennnt" → "urgent", but also "approve" → "aprove"). Lexicon entries go through the same folding
 * (`foldPattern`) when they are compiled at module load, so both sides agree. Digits inside words of three or more
 * letters are read as leetspeak ("p4ssw0rd", "1gn0re"); number tokens such as "48k" or "500eur" are left alone, since
 * the amount parser reads the same text.
 *
 * `map[i]` is the index in the original text of normalised character i: a detector quotes the original words of a
 * short cue (§12: a short cue, never the message wholesale).
 */
import { topLevelAlternatives } from './cue.prefilter';

export interface NormalizedText {
  readonly original: string;
  readonly text: string;
  readonly map: readonly number[];
}

const TABLE_SIZE = 0x250;
const FOLD: string[] = new Array<string>(TABLE_SIZE);
const SPECIAL = new Map<number, string>([
  [0x00df, 'ss'],
  [0x1e9e, 'ss'],
  [0x00e6, 'ae'],
  [0x00c6, 'ae'],
  [0x0153, 'oe'],
  [0x0152, 'oe'],
  [0x00f8, 'o'],
  [0x00d8, 'o'],
  [0x0111, 'd'],
  [0x0110, 'd'],
  [0x0142, 'l'],
  [0x0141, 'l'],
  [0x0131, 'i'],
  // typographic punctuation
  [0x2018, "'"],
  [0x2019, "'"],
  [0x201b, "'"],
  [0x00b4, "'"],
  [0x0060, "'"],
  [0x201c, '"'],
  [0x201d, '"'],
  [0x201e, '"'],
  [0x00ab, '"'],
  [0x00bb, '"'],
  [0x2013, '-'],
  [0x2014, '-'],
  [0x2212, '-'],
  [0x00a0, ' '],
  [0x202f, ' '],
  [0x2009, ' '],
  [0x2007, ' '],
  // invisible characters used to split cue words
  [0x00ad, ''],
  [0x200b, ''],
  [0x200c, ''],
  [0x200d, ''],
  [0x2060, ''],
  [0xfeff, ''],
  // Cyrillic and Greek look-alikes of Latin letters
  [0x0430, 'a'],
  [0x0410, 'a'],
  [0x0435, 'e'],
  [0x0415, 'e'],
  [0x043e, 'o'],
  [0x041e, 'o'],
  [0x0440, 'p'],
  [0x0420, 'p'],
  [0x0441, 'c'],
  [0x0421, 'c'],
  [0x0445, 'x'],
  [0x0425, 'x'],
  [0x0456, 'i'],
  [0x0406, 'i'],
  [0x0443, 'y'],
  [0x03bf, 'o'],
  [0x039f, 'o'],
  [0x03b1, 'a'],
  [0x0391, 'a'],
]);

for (let code = 0; code < TABLE_SIZE; code++) {
  const special = SPECIAL.get(code);
  if (special !== undefined) {
    FOLD[code] = special;
    continue;
  }
  const ch = String.fromCharCode(code);
  if (/\s/.test(ch)) {
    FOLD[code] = ' ';
    continue;
  }
  FOLD[code] = ch.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

function foldChar(code: number, ch: string): string {
  if (code < TABLE_SIZE) return FOLD[code] ?? '';
  const special = SPECIAL.get(code);
  if (special !== undefined) return special;
  if (code >= 0x0300 && code <= 0x036f) return '';
  if (code === 0x2028 || code === 0x2029 || code === 0x3000) return ' ';
  return ch.toLowerCase();
}

function isAsciiLetter(ch: string): boolean {
  return ch >= 'a' && ch <= 'z';
}

const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };
/** `LEET` by character code: the letter a leet character reads as, or the code itself. */
const LEET_CODE = Int32Array.from({ length: 128 }, (_, code) => (LEET[String.fromCharCode(code)] ?? String.fromCharCode(code)).charCodeAt(0));

function isTokenChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 64 || code === 36;
}

function isLeetChar(code: number): boolean {
  return (code >= 48 && code <= 57) || code === 64 || code === 36;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Reads digits as letters inside tokens with at least three letters that do not start with a two-digit number
 * ("p4ssw0rd", not "48k" or "500eur"), in place on the first `length` folded codes: same length in and out, so the
 * index map stays valid.
 */
function unleet(codes: Uint16Array, length: number): void {
  let i = 0;
  while (i < length) {
    if (!isTokenChar(codes[i] ?? 0)) {
      i++;
      continue;
    }
    const start = i;
    let letters = 0;
    let leet = 0;
    for (; i < length && isTokenChar(codes[i] ?? 0); i++) {
      if (isLeetChar(codes[i] ?? 0)) leet++;
      else letters++;
    }
    if (leet === 0 || letters < 3) continue;
    if (isDigit(codes[start] ?? 0) && start + 1 < length && isDigit(codes[start + 1] ?? 0)) continue;
    for (let k = start; k < i; k++) codes[k] = LEET_CODE[codes[k] ?? 0] ?? 0;
  }
}

/** The single character code each of the first `TABLE_SIZE` characters folds to; -1 when it folds to nothing or to two. */
const FOLD_CODE = Int32Array.from(FOLD, (folded) => (folded.length === 1 ? folded.charCodeAt(0) : -1));

/** Scratch space for the folded character codes (one normalisation at a time: the analysis is synchronous). */
let codes: Uint16Array = new Uint16Array(1024);
/** Characters per `String.fromCharCode` call, well below the engines' argument limits. */
const CHUNK = 4096;

function decode(length: number): string {
  let out = '';
  for (let at = 0; at < length; at += CHUNK) out += String.fromCharCode.apply(null, codes.subarray(at, Math.min(length, at + CHUNK)) as unknown as number[]);
  return out;
}

export function normalizeText(original: string): NormalizedText {
  const map: number[] = [];
  return { original, text: fold(original, map), map };
}

/**
 * The normalised text alone, for a text that is matched but never quoted (an item, a rule, the goal): the same text
 * as `normalizeText(original).text`, without building the index map, one entry per character.
 */
export function foldText(original: string): string {
  return fold(original, undefined);
}

/** Folds `original`; with `map`, records there the original index of each folded character. */
function fold(original: string, map: number[] | undefined): string {
  // The folded characters go to a reused code buffer, decoded once at the end (no string built per character).
  if (codes.length < original.length) codes = new Uint16Array(original.length * 2);
  let length = 0;
  let last = 32;
  for (let i = 0; i < original.length; i++) {
    const code = original.charCodeAt(i);
    const single = code < TABLE_SIZE ? (FOLD_CODE[code] ?? -1) : -1;
    if (single >= 0) {
      // Most characters fold to one: no string at all.
      if (single === 32 ? last === 32 : single === last && single >= 97 && single <= 122) continue;
      if (length === codes.length) codes = grow(codes);
      codes[length++] = single;
      map?.push(i);
      last = single;
      continue;
    }
    const folded = foldChar(code, original.charAt(i));
    for (let k = 0; k < folded.length; k++) {
      const ch = folded.charCodeAt(k);
      if (ch === 32 ? last === 32 : ch === last && ch >= 97 && ch <= 122) continue;
      if (length === codes.length) codes = grow(codes);
      codes[length++] = ch;
      map?.push(i);
      last = ch;
    }
  }
  if (last === 32 && length > 0) {
    length--;
    map?.pop();
  }
  unleet(codes, length);
  return decode(length);
}

function grow(buffer: Uint16Array): Uint16Array {
  const grown = new Uint16Array(buffer.length * 2);
  grown.set(buffer);
  return grown;
}

/**
 * Folds a lexicon pattern's source the way `normalizeText` folds a message, leaving regex escapes (`\b`, `\d`, `\s`)
 * untouched. Lexicons avoid upper-case escapes (`\W`, `\S`) since folding lower-cases the source.
 */
export function foldPattern(source: string): string {
  let out = '';
  let last = '';
  for (let i = 0; i < source.length; i++) {
    const ch = source.charAt(i);
    if (ch === '\\' && i + 1 < source.length) {
      out += ch + source.charAt(i + 1);
      i++;
      last = '';
      continue;
    }
    const folded = foldChar(source.charCodeAt(i), ch);
    for (let k = 0; k < folded.length; k++) {
      const f = folded.charAt(k);
      if (f === last && isAsciiLetter(f)) continue;
      out += f;
      last = f;
    }
  }
  return out;
}

/**
 * Compiles a list of lexicon alternatives into one case-folded pattern (module load only, never per call). Nearly every
 * alternative starts with `\b`: each run of such alternatives is written with one `\b` in front of its group
 * (`\b(?:a|b)` for `\ba|\bb`, the same matches in the same order), so that a position inside a word is rejected
 * once rather than once per alternative. That halves the cost of a scan, and of the gap of a composed pattern, which
 * tries a whole class at every position it spans.
 */
export function compileCues(sources: readonly string[], flags = ''): RegExp {
  const parts: string[] = [];
  let bounded: string[] = [];
  const flush = () => {
    if (bounded.length > 0) parts.push(`\\b(?:${bounded.join('|')})`);
    bounded = [];
  };
  for (const alternative of sources.flatMap((source) => topLevelAlternatives(foldPattern(source)))) {
    if (alternative.startsWith('\\b')) {
      bounded.push(alternative.slice(2));
      continue;
    }
    flush();
    parts.push(alternative);
  }
  flush();
  return new RegExp(`(?:${parts.join('|')})`, flags);
}

const MAX_CUE_WORDS = 8;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const SPACES = /\s+/g;
const DOUBLE_QUOTE = /"/g;
const SENTENCE_END = /[.!?\n:;]/;
/** An e-mail address, or a word with an @ in it (a handle, a half-typed address). */
const ADDRESS = /[^\s"]*@[^\s"]*/g;
/** A run of eight or more digits, spaces and dashes between them allowed: an account, card, IBAN or phone number. */
const LONG_NUMBER = /[\p{L}]{0,2}\d(?:[ -]?\d){7,}/gu;

/**
 * The original words behind a normalised match, at most eight words, in double quotes: the only part of a message an
 * analysis may repeat (§12). Even within a cue, an address or an account-like number is never repeated: the cue says
 * what the message does ("pay it to my … instead"), and the identifiers it names stay in the message.
 */
export function quoteCue(source: NormalizedText, start: number, end: number): string {
  if (source.map.length === 0) return '""';
  const from = source.map[Math.min(start, source.map.length - 1)] ?? 0;
  const to = (source.map[Math.max(Math.min(end, source.map.length) - 1, 0)] ?? 0) + 1;
  let a = from;
  let b = to;
  const o = source.original;
  while (a > 0 && WORD_CHAR.test(o.charAt(a - 1))) a--;
  while (b < o.length && WORD_CHAR.test(o.charAt(b))) b++;
  // A little context for a short cue: up to two words either side, never across a sentence end.
  for (let words = 0; words < 2 && a > 0 && !SENTENCE_END.test(o.charAt(a - 1)); ) {
    a--;
    if (o.charAt(a) === ' ' && a > 0 && o.charAt(a - 1) !== ' ') words++;
  }
  for (let words = 0; words < 2 && b < o.length && !SENTENCE_END.test(o.charAt(b)); b++) {
    if (o.charAt(b) === ' ' && b + 1 < o.length && o.charAt(b + 1) !== ' ') words++;
  }
  const words = o.slice(a, b).replace(ADDRESS, '[address]').replace(LONG_NUMBER, '[number]').replace(SPACES, ' ').trim().split(' ');
  const cut = words.length > MAX_CUE_WORDS ? `${words.slice(0, MAX_CUE_WORDS).join(' ')}…` : words.join(' ');
  return `"${cut.replace(DOUBLE_QUOTE, "'")}"`;
}

/** First match of `pattern` (non-global) in `source`, as a quoted cue, or undefined. */
export function findCue(source: NormalizedText, pattern: RegExp): string | undefined {
  const m = pattern.exec(source.text);
  return m ? quoteCue(source, m.index, m.index + m[0].length) : undefined;
}
