/**
 * A word-prefix index that lets the cue scanner skip a cue class whose pattern cannot match (performance, issue 9:
 * thousands of analyses per second). At module load, each class's alternatives are read for the letters every match
 * must start with (the first one to three literal characters after `\b`); at run time the message's word prefixes
 * are collected once, and a class is scanned only if one of its keys is among them. A class whose alternatives do
 * not all start with a literal word (an optional group, `^`, a character class) is always scanned: the index may
 * only skip work, never change a result.
 */

const MAX_KEY = 3;

/** Splits a regex source at top-level `|` (outside groups and character classes). */
function topLevelAlternatives(source: string): string[] {
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

/**
 * The words an alternative requires, in order, each as the keys one of which starts it: `\b(?:my|our) (?:boss|ceo)`
 * requires a word starting "my" or "our" and one starting "bos" or "ceo". Parsing stops at the first optional or
 * non-literal part; undefined when not even the first word can be keyed.
 */
function keysOfAlternative(alternative: string): string[][] | undefined {
  if (!alternative.startsWith('\\b')) return undefined;
  let rest = alternative.slice(2);
  const words: string[][] = [];
  while (rest.length > 0 && words.length < 3) {
    let keys: string[] | undefined;
    let consumed: number;
    if (rest.startsWith('(?:')) {
      const end = groupEnd(rest);
      if (end < 0) break;
      const after = rest.charAt(end + 1);
      if (after === '?' || after === '*' || after === '{') break;
      keys = [];
      for (const inner of topLevelAlternatives(rest.slice(3, end))) {
        const key = literalKey(inner);
        if (!key) {
          keys = undefined;
          break;
        }
        keys.push(key);
      }
      consumed = end + 1;
    } else {
      const key = literalKey(rest);
      keys = key ? [key] : undefined;
      const word = /^[a-z0-9]+/.exec(rest);
      consumed = word ? word[0].length : 0;
      // A literal word is followed by a space only if it was read whole (no optional letter, class or group).
    }
    if (!keys) break;
    words.push(keys);
    if (rest.charAt(consumed) !== ' ') break;
    rest = rest.slice(consumed + 1);
  }
  return words.length > 0 ? words : undefined;
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

/** Whether some alternative has every word it requires among the text's word prefixes. */
export function mayMatch(alternatives: readonly (readonly string[][])[], prefixes: ReadonlySet<string>): boolean {
  return alternatives.some((words) => words.every((keys) => keys.some((k) => prefixes.has(k))));
}

const WORD = /[a-z0-9]+/g;

/** Every 1-3 character prefix of every word of a normalised text. */
export function wordPrefixes(text: string): Set<string> {
  const prefixes = new Set<string>();
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    const w = m[0];
    prefixes.add(w.charAt(0));
    if (w.length > 1) prefixes.add(w.slice(0, 2));
    if (w.length > 2) prefixes.add(w.slice(0, 3));
  }
  return prefixes;
}
