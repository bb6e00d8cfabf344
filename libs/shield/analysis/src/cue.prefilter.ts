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

function keysOfAlternative(alternative: string): string[] | undefined {
  if (!alternative.startsWith('\\b')) return undefined;
  const rest = alternative.slice(2);
  if (!rest.startsWith('(?:')) {
    const key = literalKey(rest);
    return key ? [key] : undefined;
  }
  // A leading group: find its end, refuse an optional group, and key each of its alternatives.
  let depth = 0;
  let end = -1;
  for (let i = 0; i < rest.length; i++) {
    const ch = rest.charAt(i);
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) {
      end = i;
      break;
    }
  }
  if (end < 0) return undefined;
  const after = rest.charAt(end + 1);
  if (after === '?' || after === '*' || after === '{') return undefined;
  const keys: string[] = [];
  for (const inner of topLevelAlternatives(rest.slice(3, end))) {
    const key = literalKey(inner);
    if (!key) return undefined;
    keys.push(key);
  }
  return keys;
}

/** The keys one of which every match of the (folded) sources starts with, or undefined when there are none. */
export function prefilterKeys(foldedSources: readonly string[]): readonly string[] | undefined {
  const keys = new Set<string>();
  for (const source of foldedSources) {
    for (const alternative of topLevelAlternatives(source)) {
      const found = keysOfAlternative(alternative);
      if (!found) return undefined;
      for (const k of found) keys.add(k);
    }
  }
  return [...keys];
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
