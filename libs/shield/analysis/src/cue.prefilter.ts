/**
 * A word-start index that lets a cue class or topic be tried only where it can begin (performance, issue 9: thousands
 * of analyses per second). At module load, each pattern's alternatives are read for the letters every match must start
 * with (the first one to three literal characters after `\b`); at run time a text's word starts are read once, and a
 * pattern is tried (sticky) only at the word starts whose first letters are among its keys (or, for `[a-z]*key`, at
 * the words that hold the key), instead of at every position. A pattern whose alternatives do not all start with a
 * literal word, a group of them or a class of letters (`^`, `'?s`, an optional start with nothing literal after it)
 * is always scanned whole: the index may only skip work, never change a result. The module also reads a pattern's
 * source for whether a match may hold a sentence end (`mayEndSentence`), which bounds where a composed pattern can
 * find its last part.
 */

const MAX_KEY = 3;
/** Marks a key that may come anywhere in the word a match starts with, after letters and digits (`[a-z]*key`). */
const INFIX = '*';

/** Splits a regex source at top-level `|` (outside groups and character classes). */
export function topLevelAlternatives(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source.charAt(i);
    if (ch === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') inClass = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '|' && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(source.slice(start));
  return parts;
}

/** The literal prefix (up to three characters) of `source`, or undefined when it does not start with one. */
function literalKey(source: string): string | undefined {
  let key = '';
  for (let i = 0; i < source.length && key.length < MAX_KEY; i++) {
    const ch = source.charAt(i);
    if (!/[a-z0-9]/.test(ch)) break;
    const next = source.charAt(i + 1);
    if (next === '?' || next === '*' || next === '{') break;
    key += ch;
  }
  return key.length > 0 ? key : undefined;
}

/** Where the group opening at `rest[0]` closes, or -1. */
function groupEnd(rest: string): number {
  let depth = 0;
  for (let i = 0; i < rest.length; i++) {
    const ch = rest.charAt(i);
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  return -1;
}

/** The characters of a character class's content of letters, digits and ranges of them (`a-z`); undefined otherwise. */
function classKeys(content: string): string[] | undefined {
  const keys: string[] = [];
  for (let i = 0; i < content.length; i++) {
    const ch = content.charAt(i);
    if (!/[a-z0-9]/.test(ch)) return undefined;
    if (content.charAt(i + 1) !== '-') {
      keys.push(ch);
      continue;
    }
    const last = content.charAt(i + 2);
    if (!/[a-z0-9]/.test(last) || last < ch) return undefined;
    for (let code = ch.charCodeAt(0); code <= last.charCodeAt(0); code++) keys.push(String.fromCharCode(code));
    i += 2;
  }
  return keys.length > 0 ? keys : undefined;
}

/**
 * The keys one of which every match of `source` starts with: its literal start (`literalKey`), or the keys of each
 * alternative of a leading group, or the characters of a leading character class. A group or class that may be
 * skipped (`?`, `*`) adds the keys of what follows it: `(?:already )?agreed` starts with "alr" or "agr". Undefined
 * when a match may start otherwise.
 */
function startKeys(source: string): string[] | undefined {
  let keys: string[] | undefined;
  let end: number;
  if (source.startsWith('(?:')) {
    end = groupEnd(source);
    if (end < 0) return undefined;
    keys = [];
    for (const inner of topLevelAlternatives(source.slice(3, end))) {
      const innerKeys = startKeys(inner);
      if (!innerKeys) return undefined;
      keys.push(...innerKeys);
    }
  } else if (source.startsWith('[')) {
    end = source.indexOf(']');
    keys = end < 0 ? undefined : classKeys(source.slice(1, end));
  } else {
    const key = literalKey(source);
    return key ? [key] : undefined;
  }
  if (!keys) return undefined;
  const quantifier = source.charAt(end + 1);
  if (quantifier === '{') return undefined;
  if (quantifier !== '?' && quantifier !== '*') return keys;
  const next = startKeys(source.slice(end + 2));
  if (!next) return undefined;
  // A run of letters and digits before a key (`[a-z]*leiter`): the word starts where it may begin are those of the
  // words that hold the key, a far smaller set than every word start with a letter.
  if (quantifier === '*' && source.startsWith('[')) return next.map((key) => (key.startsWith(INFIX) ? key : `${INFIX}${key}`));
  return [...keys, ...next];
}

/** How much of `source` its first word takes when that word is a plain literal word or group; 0 otherwise. */
function wordLength(source: string): number {
  if (source.startsWith('(?:')) {
    const end = groupEnd(source);
    return end < 0 || /[?*+{]/.test(source.charAt(end + 1)) ? 0 : end + 1;
  }
  return /^[a-z0-9]+/.exec(source)?.[0].length ?? 0;
}

/**
 * The words an alternative requires, in order, each as the keys one of which starts it: `\b(?:my|our) (?:boss|ceo)`
 * requires a word starting "my" or "our" and one starting "bos" or "ceo". Parsing stops after an optional or
 * non-literal part; undefined when not even the first word can be keyed.
 */
function keysOfAlternative(alternative: string): string[][] | undefined {
  if (!alternative.startsWith('\\b')) return undefined;
  let rest = alternative.slice(2);
  const words: string[][] = [];
  while (rest.length > 0 && words.length < 3) {
    const keys = startKeys(rest);
    if (!keys) break;
    words.push(keys);
    // The next word is known only after a whole literal word or group followed by a space.
    const consumed = wordLength(rest);
    if (consumed === 0 || rest.charAt(consumed) !== ' ') break;
    rest = rest.slice(consumed + 1);
  }
  return words.length > 0 ? words : undefined;
}

/** Escaped characters that match only themselves, none of them a sentence end (`\b` and `\B` match no character). */
const PLAIN_ESCAPES = new Set(['b', 'B', 'd', 'w', '"', "'", '-', '/', '$', '(', ')', '[', ']', '{', '}', '*', '+', '|', '^', ':', ',', '@', '#', '&', '%']);
const SENTENCE_ENDS = ['.', '?', '!', '\\n'];

/**
 * Whether a match of the regex `source` may contain a sentence end (`.`, `?`, `!` or a line feed). Conservative:
 * only literal characters other than those, groups, quantifiers, lookarounds, the escapes of `PLAIN_ESCAPES` and
 * classes that hold none of them (or, negated, exclude all four) count as safe; anything else may.
 */
export function mayEndSentence(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const ch = source.charAt(i);
    if (ch === '\\') {
      if (!PLAIN_ESCAPES.has(source.charAt(i + 1))) return true;
      i++;
    } else if (ch === '[') {
      let end = i + 1;
      while (end < source.length && source.charAt(end) !== ']') end += source.charAt(end) === '\\' ? 2 : 1;
      const content = source.slice(i + 1, end);
      if (content.startsWith('^') ? !SENTENCE_ENDS.every((c) => content.includes(c)) : /[.?!\\]/.test(content)) return true;
      i = end;
    } else if (ch === '(') {
      // Group syntax: `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`; its `?`, `!` are no characters.
      while (i + 1 < source.length && '?:=!<'.includes(source.charAt(i + 1))) i++;
    } else if (ch === '.' || ch === '!' || ch === '\n') {
      return true;
    }
  }
  return false;
}

/**
 * For each alternative of the (folded) sources, the words it requires (as key lists); undefined when some alternative
 * cannot be keyed, since then the class must always be scanned.
 */
export function prefilterKeys(foldedSources: readonly string[]): readonly (readonly string[][])[] | undefined {
  const alternatives: string[][][] = [];
  for (const source of foldedSources) {
    for (const alternative of topLevelAlternatives(source)) {
      const words = keysOfAlternative(alternative);
      if (!words) return undefined;
      alternatives.push(words);
    }
  }
  return alternatives;
}

/**
 * Where a pattern may start. Every alternative of a keyed pattern starts with `\b` and a literal word, so a match can
 * only begin at a word start whose first one to three characters are one of the pattern's first-word keys. The table
 * maps such a prefix (as a number, see `keyCode`) to the set of patterns it may start, as bits; a text's word
 * starts are read once (`WordStarts`), and a pattern is then tried only there (a sticky regex), instead of at every
 * position of the text. The leftmost start where the pattern matches is where an unanchored scan would have found it,
 * with the same alternative, so the result is the same match.
 */
export class StartTable {
  /** Chunks of `CHUNK_BITS` pattern bits per prefix code. */
  readonly stride: number;
  private readonly bits: Int32Array;
  /** Patterns without keys: they may start anywhere and are always scanned whole. */
  readonly unkeyed: readonly boolean[];
  /** Per pattern, the keys that may come anywhere in the first word of a match (`INFIX`). */
  readonly infixes: readonly (readonly string[])[];
  private readonly recent: { text: string; starts: WordStarts }[] = [];

  constructor(keysPerPattern: readonly (readonly (readonly string[][])[] | undefined)[]) {
    this.stride = Math.max(1, Math.ceil(keysPerPattern.length / CHUNK_BITS));
    this.bits = new Int32Array(CODES * this.stride);
    this.unkeyed = keysPerPattern.map((keys) => keys === undefined);
    this.infixes = keysPerPattern.map((alternatives) => [
      ...new Set((alternatives ?? []).flatMap((words) => (words[0] ?? []).filter((key) => key.startsWith(INFIX)).map((key) => key.slice(INFIX.length)))),
    ]);
    keysPerPattern.forEach((alternatives, pattern) => {
      for (const words of alternatives ?? []) {
        for (const key of words[0] ?? []) {
          if (key.startsWith(INFIX)) continue;
          const slot = keyCode(key) * this.stride + chunkOf(pattern);
          this.bits[slot] = (this.bits[slot] ?? 0) | bitOf(pattern);
        }
      }
    });
  }

  /**
   * The word starts of `text` for this table. A short item text is asked for several patterns in a row, so the last
   * few are kept: a pure function of the text, so keeping them changes no result.
   */
  startsOf(text: string): WordStarts {
    for (const entry of this.recent) if (entry.text === text) return entry.starts;
    const starts = new WordStarts(text, this);
    if (this.recent.length >= RECENT) this.recent.pop();
    this.recent.unshift({ text, starts });
    return starts;
  }

  /** Chunk `chunk` of the bits of the patterns the prefix `code` may start (0 for code -1, no prefix). */
  chunk(code: number, chunk: number): number {
    return code < 0 ? 0 : (this.bits[code * this.stride + chunk] ?? 0);
  }
}

const RECENT = 4;
/** Pattern bits per chunk: 30, so that every chunk is a small integer (a plain array of them stays compact). */
const CHUNK_BITS = 30;

function chunkOf(pattern: number): number {
  return Math.floor(pattern / CHUNK_BITS);
}

function bitOf(pattern: number): number {
  return 1 << pattern % CHUNK_BITS;
}

/** Base of the prefix codes: 26 letters, 10 digits, and 0 for "no character". */
const BASE = 37;
const CODES = BASE * BASE * BASE;

function digitOf(code: number): number {
  if (code >= 97 && code <= 122) return code - 96;
  if (code >= 48 && code <= 57) return code - 21;
  return 0;
}

/** The number of a one- to three-character key of `[a-z0-9]`: its digits in base 37, padded with zeros. */
function keyCode(key: string): number {
  let code = 0;
  for (let i = 0; i < MAX_KEY; i++) code = code * BASE + (i < key.length ? digitOf(key.charCodeAt(i)) : 0);
  return code;
}

/** A text's word starts, and for each pattern of one `StartTable` the starts where it may begin. */
export class WordStarts {
  readonly starts: readonly number[];
  /** Per word start, `stride` chunks of the bits of the patterns that may begin there. */
  private readonly rows: readonly number[];
  /** Per pattern, the positions where it may begin, in order: listed when first asked (an item is asked few). */
  private readonly byPattern: (readonly number[] | undefined)[] = [];

  constructor(
    private readonly text: string,
    private readonly table: StartTable,
  ) {
    // One pass: each word's one- to three-letter prefix codes as the word is found.
    const stride = table.stride;
    const starts: number[] = [];
    const rows: number[] = [];
    let previous = 0;
    for (let i = 0; i < text.length; i++) {
      const d1 = digitOf(text.charCodeAt(i));
      const wordStart = d1 !== 0 && previous === 0;
      previous = d1;
      if (!wordStart) continue;
      starts.push(i);
      const d2 = i + 1 < text.length ? digitOf(text.charCodeAt(i + 1)) : 0;
      const d3 = d2 !== 0 && i + 2 < text.length ? digitOf(text.charCodeAt(i + 2)) : 0;
      const code1 = d1 * BASE * BASE;
      const code2 = d2 === 0 ? -1 : code1 + d2 * BASE;
      const code3 = d3 === 0 ? -1 : code1 + d2 * BASE + d3;
      for (let k = 0; k < stride; k++) rows.push(table.chunk(code1, k) | table.chunk(code2, k) | table.chunk(code3, k));
    }
    this.starts = starts;
    this.rows = rows;
  }

  /** The positions where `pattern` may begin, in order. */
  startsFor(pattern: number): readonly number[] {
    const known = this.byPattern[pattern];
    if (known) return known;
    const stride = this.table.stride;
    const chunk = chunkOf(pattern);
    const bit = bitOf(pattern);
    let list: number[] = [];
    for (let w = 0; w < this.starts.length; w++) if (((this.rows[w * stride + chunk] ?? 0) & bit) !== 0) list.push(this.starts[w] ?? 0);
    const infixes = this.table.infixes[pattern] ?? [];
    if (infixes.length > 0) {
      const words = new Set(list);
      for (const infix of infixes) for (let at = this.text.indexOf(infix); at >= 0; at = this.text.indexOf(infix, at + 1)) words.add(this.wordStartOf(at));
      list = [...words].sort((a, b) => a - b);
    }
    this.byPattern[pattern] = list;
    return list;
  }

  /** The start of the word (run of letters and digits) that holds `index`. */
  private wordStartOf(index: number): number {
    let start = index;
    while (start > 0 && digitOf(this.text.charCodeAt(start - 1)) !== 0) start--;
    return start;
  }

  /**
   * Where in `text` (the text the starts were read from) the first match of the table's `pattern` is; `whole` is the
   * pattern, `sticky` the same with the `y` flag. Same span as `whole.exec(text)`; a sticky `test` builds no match
   * array, and leaves `lastIndex` at the match's end.
   */
  find(text: string, pattern: number, whole: RegExp, sticky: RegExp): Span | null {
    if (this.table.unkeyed[pattern]) {
      const m = whole.exec(text);
      return m ? { index: m.index, end: m.index + m[0].length } : null;
    }
    for (const index of this.startsFor(pattern)) {
      sticky.lastIndex = index;
      if (sticky.test(text)) return { index, end: sticky.lastIndex };
    }
    return null;
  }
}

/** Where a match starts and ends. */
export interface Span {
  readonly index: number;
  readonly end: number;
}
