/**
 * String length as JSON Schema counts it for `minLength`/`maxLength`: Unicode code points, a surrogate
 * pair being one. The input validators and the generated record validators both count with this, so an
 * input the validators accept is never refused by the schema of the record built from it.
 */
const SURROGATE = /[\ud800-\udfff]/;
const HIGH_SURROGATE_GLOBAL = /[\ud800-\udbff]/g;

export function codePointLength(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  // A lone surrogate counts as one code point (as Ajv counts); a pair counts once, through its high half
  // followed by a low half.
  let pairs = 0;
  for (const match of text.matchAll(HIGH_SURROGATE_GLOBAL)) {
    const next = text.charCodeAt((match.index ?? 0) + 1);
    if (next >= 0xdc00 && next <= 0xdfff) pairs += 1;
  }
  return text.length - pairs;
}

/** True when the string holds a surrogate that is not half of a pair (no UTF-8 form). */
export function hasLoneSurrogate(text: string): boolean {
  return SURROGATE.test(text) && /\p{Cs}/u.test(text);
}
