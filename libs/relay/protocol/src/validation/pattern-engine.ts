/**
 * The RegExp engine the compiled validators use for `pattern`. Validators only ever call `test()`, so
 * capturing groups do nothing but cost: V8 records every capture on every match. The engine compiles
 * each schema pattern with its groups made non-capturing, which matches exactly the same strings.
 *
 * Each compiled pattern also remembers the last few strings it accepted. A socket's frames repeat the
 * same identifiers (its workspace, runtime instance, thread, turn, stream) in frame after frame, and a
 * UUID test was the largest single cost of validating a frame; comparing with a remembered string is
 * cheaper than running the expression. `test` is a pure function of its input (no `g` or `y` flag, so
 * no `lastIndex`), so answering from memory gives exactly the answer the expression gives.
 *
 * Patterns in the relay documents are ASCII, so the `u` flag is kept as the schema dialect asks.
 */

/** What the compiled validators need of a pattern (Ajv's `RegExpLike`), and the text Ajv tells patterns apart by. */
export interface PatternMatcher {
  test(input: string): boolean;
  toString(): string;
}

/**
 * How many accepted strings a pattern remembers: more than the identifiers one frame carries. A string
 * has one slot, picked from its length and last two characters, so a look-up is one comparison.
 */
const REMEMBERED = 16;
/** Longer strings are tested every time, so the memory held stays a few hundred bytes per pattern. */
const REMEMBERED_MAX_LENGTH = 64;

class RememberingPattern implements PatternMatcher {
  /** Accepted strings by slot; `undefined` slots equal no string. */
  private readonly accepted: Array<string | undefined> = new Array<string | undefined>(REMEMBERED).fill(undefined);

  constructor(private readonly expression: RegExp) {}

  test(input: string): boolean {
    const length = input.length;
    if (length < 2 || length > REMEMBERED_MAX_LENGTH) return this.expression.test(input);
    // The last characters differ most between identifiers (a UUID's middle one is always a dash).
    const slot = (length + input.charCodeAt(length - 1) + 3 * input.charCodeAt(length - 2)) & (REMEMBERED - 1);
    if (this.accepted[slot] === input) return true;
    if (!this.expression.test(input)) return false;
    this.accepted[slot] = input;
    return true;
  }

  /** Ajv keys the compiled patterns it shares on this text: it must differ whenever the expressions do. */
  toString(): string {
    return this.expression.toString();
  }
}

export function compilePattern(pattern: string, flags: string): PatternMatcher {
  return new RememberingPattern(new RegExp(withoutCaptures(pattern), flags));
}

/** Turns every `(` that opens a capturing group into `(?:`, leaving escapes and classes alone. */
export function withoutCaptures(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i];
    if (char === '\\') {
      out += char + (pattern[i + 1] ?? '');
      i += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      out += char;
      continue;
    }
    if (char === '[') inClass = true;
    if (char === '(' && pattern[i + 1] !== '?') {
      out += '(?:';
      continue;
    }
    out += char;
  }
  return out;
}
