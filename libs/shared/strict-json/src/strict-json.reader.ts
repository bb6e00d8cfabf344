/**
 * A strict JSON reader: `JSON.parse` plus the checks `JSON.parse` does not make, decided in one
 * iterative pass over the text; the value is handed out only if that pass finds nothing.
 *
 * - Duplicate keys: `JSON.parse` keeps the last of two equal keys, so a reader that checks the parsed
 *   value and passes the text on lets the text say something the check never saw. Keys are compared
 *   after unescaping (`"a"` and `"\u0061"` are the same key).
 * - Nesting depth: walkers of parsed values (validators, canonical forms, projections) recurse once per
 *   level; a bound here, checked before any of them runs, keeps an 18 KB array nested 9,000 deep from
 *   overflowing the stack.
 * - Lone surrogates and integers beyond ±(2^53 − 1), which `JSON.parse` accepts (and rounds): optional,
 *   for documents that must be I-JSON (RFC 7493) such as signed cards.
 *
 * Why `JSON.parse` and a pass of our own rather than one parser of our own: V8's `JSON.parse` is several
 * times faster than any parser written in JavaScript, and it stays the one authority on syntax (text it
 * refuses is `JSON_SYNTAX`, and the pass runs only on text it accepted). The pass only follows
 * structure: strings are skipped with `indexOf`, the few characters between them read with `charCodeAt`,
 * and nothing is allocated per character. A quick pass handles the common text (no escapes, small
 * objects) with key spans in fixed arrays; anything else goes to the full pass, which compares keys as
 * spans while an object has few of them and none escaped, and through a `Set` of decoded keys otherwise,
 * so an object with many keys costs linear time, not quadratic. On the relay's frame mix the quick pass
 * costs about a third of a `JSON.parse`.
 */

export const STRICT_JSON_ISSUE_CODES = [
  /** The text is not JSON (RFC 8259). */
  'JSON_SYNTAX',
  /** Arrays and objects are nested deeper than `maxDepth`. */
  'JSON_TOO_DEEP',
  /** An object has two members with the same key (compared after unescaping). */
  'JSON_DUPLICATE_KEY',
  /** A string holds an unpaired UTF-16 surrogate (raw or escaped), with `loneSurrogates: 'refuse'`. */
  'JSON_LONE_SURROGATE',
  /** An integer literal beyond ±(2^53 − 1), which a double cannot hold exactly, with `unsafeIntegers: 'refuse'`. */
  'JSON_UNSAFE_INTEGER',
] as const;

export type StrictJsonIssueCode = (typeof STRICT_JSON_ISSUE_CODES)[number];

export interface StrictJsonIssue {
  code: StrictJsonIssueCode;
  /**
   * JSON pointer (RFC 6901) of where the problem is: the object holding the duplicate key, the first
   * container past the depth limit, the string or number refused; `""` for a syntax error.
   */
  pointer: string;
  message: string;
}

export type StrictJsonResult = { ok: true; value: unknown } | { ok: false; issue: StrictJsonIssue };

/** Nesting a reader allows unless told otherwise: deep enough for any document people write, far below what overflows a stack. */
export const DEFAULT_MAX_JSON_DEPTH = 128;

export interface StrictJsonOptions {
  /** `'refuse'` (the default) or `'keep-last'`, which is `JSON.parse`'s behaviour. */
  duplicateKeys?: 'refuse' | 'keep-last';
  /** Deepest nesting of arrays and objects allowed; the top-level container is at depth 1. Default 128. */
  maxDepth?: number;
  /** `'allow'` (the default, as `JSON.parse`) or `'refuse'`. */
  loneSurrogates?: 'allow' | 'refuse';
  /** `'allow'` (the default, as `JSON.parse`, which rounds them) or `'refuse'`. */
  unsafeIntegers?: 'allow' | 'refuse';
}

/** Thrown by `parseStrictJsonOrThrow`; carries the same issue `parseStrictJson` returns. */
export class StrictJsonError extends Error {
  override readonly name = 'StrictJsonError';

  constructor(readonly issue: StrictJsonIssue) {
    super(issue.message);
  }
}

/** Parses `text` as JSON with the checks of `options`; never throws. */
export function parseStrictJson(text: string, options: StrictJsonOptions = {}): StrictJsonResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, issue: SYNTAX_ISSUE };
  }
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const refuseDuplicates = options.duplicateKeys !== 'keep-last';
  const refuseSurrogates = options.loneSurrogates === 'refuse';
  const refuseUnsafe = options.unsafeIntegers === 'refuse';
  if (refuseDuplicates && !refuseSurrogates && !refuseUnsafe && quickScan(text, maxDepth)) return { ok: true, value };
  const problem = scan(text, maxDepth, refuseDuplicates, refuseSurrogates, refuseUnsafe);
  return problem ? { ok: false, issue: problem } : { ok: true, value };
}

/** As `parseStrictJson`, for callers whose failures are exceptions. */
export function parseStrictJsonOrThrow(text: string, options?: StrictJsonOptions): unknown {
  const result = parseStrictJson(text, options);
  if (!result.ok) throw new StrictJsonError(result.issue);
  return result.value;
}

const SYNTAX_ISSUE: StrictJsonIssue = Object.freeze({ code: 'JSON_SYNTAX', pointer: '', message: 'The text is not valid JSON.' });

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const OBJECT = 1;
/** Past this many keys (or at the first escaped key) an object's keys go into a `Set`. */
const MAX_SPAN_KEYS = 16;

/**
 * The pass's working memory, reused across calls (the pass is synchronous and never re-entered): per
 * nesting level its kind, the array index, and the current key; and the key spans of the
 * open objects, stacked.
 */
let levelKind = new Uint8Array(32);
let levelIndex = new Int32Array(32);
let levelSpanBase = new Int32Array(32);
let levelKeyStart = new Int32Array(32);
let levelKeyEnd = new Int32Array(32);
let levelKeyEscaped = new Uint8Array(32);
const levelKeySet: Array<Set<string> | undefined> = [];
let spanStart = new Int32Array(128);
let spanEnd = new Int32Array(128);

function growLevels(): void {
  const grow = <T extends Uint8Array | Int32Array>(array: T): T => {
    const next = new (array.constructor as new (length: number) => T)(array.length * 2);
    next.set(array);
    return next;
  };
  levelKind = grow(levelKind);
  levelIndex = grow(levelIndex);
  levelSpanBase = grow(levelSpanBase);
  levelKeyStart = grow(levelKeyStart);
  levelKeyEnd = grow(levelKeyEnd);
  levelKeyEscaped = grow(levelKeyEscaped);
}

function growSpans(): void {
  const starts = new Int32Array(spanStart.length * 2);
  const ends = new Int32Array(spanEnd.length * 2);
  starts.set(spanStart);
  ends.set(spanEnd);
  spanStart = starts;
  spanEnd = ends;
}

/** The decoded text of a string token whose contents are `text[start, end)`; undefined if its escapes are invalid. */
function decodeString(text: string, start: number, end: number, escaped: boolean): string | undefined {
  if (!escaped) return text.slice(start, end);
  try {
    return JSON.parse(text.slice(start - 1, end + 1)) as string;
  } catch {
    return undefined;
  }
}

function hasLoneSurrogate(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit >= 0xdc00) return true;
    const next = value.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
    i += 1;
  }
  return false;
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The JSON pointer of the value being read at `depth` (the container opened at that level when `depth` is the top). */
function pointerAt(text: string, depth: number): string {
  let pointer = '';
  for (let level = 1; level < depth; level += 1) {
    if (levelKind[level] === OBJECT) {
      const key = decodeString(text, levelKeyStart[level] ?? 0, levelKeyEnd[level] ?? 0, levelKeyEscaped[level] === 1) ?? '';
      pointer += `/${escapePointerToken(key)}`;
    } else {
      pointer += `/${levelIndex[level] ?? 0}`;
    }
  }
  return pointer;
}

/** Names a key in a message: quoted, and cut so a peer's long key cannot fill a log line. */
function quoteKey(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);
}

function sameSpan(text: string, aStart: number, bStart: number, length: number): boolean {
  for (let k = 0; k < length; k += 1) if (text.charCodeAt(aStart + k) !== text.charCodeAt(bStart + k)) return false;
  return true;
}

/** The index of the quote closing the string whose contents start at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let quote = text.indexOf('"', from);
  while (quote !== -1) {
    let backslashes = 0;
    for (let k = quote - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k -= 1) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

function scan(text: string, maxDepth: number, refuseDuplicates: boolean, refuseSurrogates: boolean, refuseUnsafe: boolean): StrictJsonIssue | undefined {
  const length = text.length;
  let depth = 0;
  let spanTop = 0;
  let expectKey = false;
  // The first backslash at or after the string being read (or `length`): most texts have none, so one
  // `indexOf` tells every string that it needs no unescaping, and the total work stays linear. (Reading
  // short strings in place with `charCodeAt` instead of `indexOf` measured slower.)
  let backslash = -1;
  let i = 0;
  while (i < length) {
    const unit = text.charCodeAt(i);
    if (unit === QUOTE) {
      const start = i + 1;
      if (backslash < start) {
        backslash = text.indexOf('\\', start);
        if (backslash === -1) backslash = length;
      }
      let end = text.indexOf('"', start);
      const escaped = end !== -1 && backslash < end;
      if (escaped) end = closingQuote(text, start);
      if (end === -1) return SYNTAX_ISSUE;
      i = end + 1;
      if (refuseSurrogates) {
        const decoded = decodeString(text, start, end, escaped);
        if (decoded === undefined) return SYNTAX_ISSUE;
        if (hasLoneSurrogate(decoded)) {
          if (expectKey) setKey(depth, start, end, escaped);
          return { code: 'JSON_LONE_SURROGATE', pointer: pointerAt(text, depth + 1), message: 'A string holds an unpaired UTF-16 surrogate; text must be valid Unicode.' };
        }
      }
      if (!expectKey) continue;
      expectKey = false;
      setKey(depth, start, end, escaped);
      if (!refuseDuplicates) continue;
      let keys = levelKeySet[depth];
      const base = levelSpanBase[depth] ?? 0;
      if (keys === undefined && (escaped || spanTop - base >= MAX_SPAN_KEYS)) {
        keys = new Set<string>();
        for (let k = base; k < spanTop; k += 1) keys.add(text.slice(spanStart[k], spanEnd[k]));
        levelKeySet[depth] = keys;
        spanTop = base;
      }
      let duplicate = false;
      if (keys !== undefined) {
        const key = decodeString(text, start, end, escaped);
        if (key === undefined) return SYNTAX_ISSUE;
        duplicate = keys.has(key);
        keys.add(key);
      } else {
        const keyLength = end - start;
        for (let k = base; k < spanTop; k += 1) {
          const other = spanStart[k] ?? 0;
          if ((spanEnd[k] ?? 0) - other === keyLength && sameSpan(text, other, start, keyLength)) {
            duplicate = true;
            break;
          }
        }
        if (spanTop === spanStart.length) growSpans();
        spanStart[spanTop] = start;
        spanEnd[spanTop] = end;
        spanTop += 1;
      }
      if (duplicate) {
        const key = decodeString(text, start, end, escaped) ?? '';
        const at = pointerAt(text, depth);
        return {
          code: 'JSON_DUPLICATE_KEY',
          pointer: at,
          message: `The key ${quoteKey(key)} appears more than once in the object at "${at}"; each key may appear once.`,
        };
      }
      continue;
    }
    if (unit === OPEN_BRACE || unit === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) {
        return {
          code: 'JSON_TOO_DEEP',
          pointer: pointerAt(text, depth),
          message: `Arrays and objects are nested more than ${maxDepth} deep.`,
        };
      }
      if (depth >= levelKind.length) growLevels();
      levelKind[depth] = unit === OPEN_BRACE ? OBJECT : 0;
      levelIndex[depth] = 0;
      levelSpanBase[depth] = spanTop;
      levelKeySet[depth] = undefined;
      expectKey = unit === OPEN_BRACE;
      i += 1;
      continue;
    }
    if (unit === CLOSE_BRACE || unit === CLOSE_BRACKET) {
      if (depth > 0) {
        spanTop = levelSpanBase[depth] ?? 0;
        levelKeySet[depth] = undefined;
        depth -= 1;
      }
      expectKey = false;
      i += 1;
      continue;
    }
    if (unit === COMMA) {
      if (depth > 0) {
        if (levelKind[depth] === OBJECT) expectKey = true;
        else levelIndex[depth] = (levelIndex[depth] ?? 0) + 1;
      }
      i += 1;
      continue;
    }
    if (refuseUnsafe && (unit === MINUS || (unit >= ZERO && unit <= NINE))) {
      const start = i;
      let end = unit === MINUS ? i + 1 : i;
      while (end < length && text.charCodeAt(end) >= ZERO && text.charCodeAt(end) <= NINE) end += 1;
      const integer = end >= length || !isNumberContinuation(text.charCodeAt(end));
      while (end < length && isNumberContinuation(text.charCodeAt(end))) end += 1;
      // 15 digits always fit; past that, the value decides.
      const digits = end - start - (unit === MINUS ? 1 : 0);
      if (integer && digits > 15 && !Number.isSafeInteger(Number(text.slice(start, end)))) {
        return {
          code: 'JSON_UNSAFE_INTEGER',
          pointer: pointerAt(text, depth + 1),
          message: 'An integer is beyond ±(2^53 − 1) and cannot be represented exactly; send it as a string.',
        };
      }
      i = end;
      continue;
    }
    i += 1;
  }
  return undefined;
}

/** Bounds of the quick pass's fixed working memory; texts past them take the full pass. */
const QUICK_LEVELS = 256;
const QUICK_KEYS = 2_048;
const QUICK_KEYS_PER_OBJECT = 32;
const quickKind = new Uint8Array(QUICK_LEVELS);
const quickBase = new Int32Array(QUICK_LEVELS);
const quickStart = new Int32Array(QUICK_KEYS);
const quickEnd = new Int32Array(QUICK_KEYS);

/**
 * The common case in a few instructions per token: true when the text has no escaped string, no object
 * with more than a few dozen keys, no repeated key and no nesting past `maxDepth`. Anything else (a
 * problem, or a text it does not handle) answers false and the full pass decides, with the issue's
 * pointer. It keeps no key text and no per-level key state beyond spans in fixed arrays, which made the
 * relay's frame path about a third cheaper than the full pass alone.
 *
 * On the relay's frames (objects of a dozen keys at most) its cost is mostly the `indexOf` per string;
 * alternatives measured slower: reading keys in place with `charCodeAt` (with or without hashing them
 * on the way), and a key set of hash bits per object in place of the length-first comparisons.
 */
function quickScan(text: string, maxDepth: number): boolean {
  const kind = quickKind;
  const base = quickBase;
  const starts = quickStart;
  const ends = quickEnd;
  const deepest = maxDepth < QUICK_LEVELS - 1 ? maxDepth : QUICK_LEVELS - 1;
  const length = text.length;
  let depth = 0;
  let top = 0;
  let expectKey = false;
  let backslash = text.indexOf('\\');
  if (backslash === -1) backslash = length;
  let i = 0;
  while (i < length) {
    const unit = text.charCodeAt(i);
    if (unit === QUOTE) {
      const start = i + 1;
      const end = text.indexOf('"', start);
      if (end === -1 || backslash < end) return false;
      if (!expectKey) {
        i = end + 1;
        continue;
      }
      // What follows a key up to its value is a colon and whitespace, none of which this pass reads:
      // skip the character after the closing quote.
      i = end + 2;
      expectKey = false;
      const first = base[depth] as number;
      if (top - first >= QUICK_KEYS_PER_OBJECT || top === QUICK_KEYS) return false;
      const keyLength = end - start;
      for (let k = first; k < top; k += 1) {
        const other = starts[k] as number;
        if ((ends[k] as number) - other === keyLength && sameSpan(text, other, start, keyLength)) return false;
      }
      starts[top] = start;
      ends[top] = end;
      top += 1;
      continue;
    }
    if (unit === OPEN_BRACE || unit === OPEN_BRACKET) {
      depth += 1;
      if (depth > deepest) return false;
      kind[depth] = unit === OPEN_BRACE ? OBJECT : 0;
      base[depth] = top;
      expectKey = unit === OPEN_BRACE;
    } else if (unit === CLOSE_BRACE || unit === CLOSE_BRACKET) {
      if (depth > 0) {
        top = base[depth] as number;
        depth -= 1;
      }
      expectKey = false;
    } else if (unit === COMMA) {
      expectKey = depth > 0 && kind[depth] === OBJECT;
    }
    i += 1;
  }
  return true;
}

function setKey(depth: number, start: number, end: number, escaped: boolean): void {
  levelKeyStart[depth] = start;
  levelKeyEnd[depth] = end;
  levelKeyEscaped[depth] = escaped ? 1 : 0;
}

/** Characters after the integer part of a number: a fraction, an exponent, and their digits and signs. */
function isNumberContinuation(unit: number): boolean {
  return (unit >= ZERO && unit <= NINE) || unit === 0x2e || unit === 0x65 || unit === 0x45 || unit === 0x2b || unit === MINUS;
}
