/**
 * The RegExp engine the compiled validators use for `pattern`. Validators only ever call `test()`, so
 * capturing groups do nothing but cost: V8 records every capture on every match. The engine compiles
 * each schema pattern with its groups made non-capturing, which matches exactly the same strings.
 *
 * Patterns in the relay documents are ASCII, so the `u` flag is kept as the schema dialect asks.
 */
export function compilePattern(pattern: string, flags: string): RegExp {
  return new RegExp(withoutCaptures(pattern), flags);
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
