/**
 * Punycode (RFC 3492) for single labels, in pure TypeScript so this library runs in browsers (node:punycode is
 * deprecated and node:url is not allowed in pure libraries). Used to turn U-labels into A-labels (`xn--…`) and back.
 * Both functions return null instead of throwing on malformed input.
 */

const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;
const MAX_CODE_POINT = 0x10ffff;

function adapt(delta: number, numPoints: number, firstTime: boolean): number {
  let d = firstTime ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / numPoints);
  let k = 0;
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW));
}

function digitToChar(digit: number): string {
  return String.fromCharCode(digit < 26 ? digit + 97 : digit + 22);
}

function charToDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 22;
  if (code >= 0x41 && code <= 0x5a) return code - 0x41;
  if (code >= 0x61 && code <= 0x7a) return code - 0x61;
  return BASE;
}

/** Encodes one label's code points as Punycode (without the `xn--` prefix). */
export function punycodeEncode(label: string): string | null {
  const input = Array.from(label, (ch) => ch.codePointAt(0) ?? 0);
  let output = input.filter((cp) => cp < 0x80).map((cp) => String.fromCharCode(cp)).join('');
  const basicLength = output.length;
  let handled = basicLength;
  if (basicLength > 0) output += '-';
  let n = INITIAL_N;
  let delta = 0;
  let bias = INITIAL_BIAS;
  while (handled < input.length) {
    const m = Math.min(...input.filter((cp) => cp >= n));
    if ((m - n) * (handled + 1) > Number.MAX_SAFE_INTEGER - delta) return null;
    delta += (m - n) * (handled + 1);
    n = m;
    for (const cp of input) {
      if (cp < n) delta++;
      if (cp === n) {
        let q = delta;
        for (let k = BASE; ; k += BASE) {
          const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
          if (q < t) break;
          output += digitToChar(t + ((q - t) % (BASE - t)));
          q = Math.floor((q - t) / (BASE - t));
        }
        output += digitToChar(q);
        bias = adapt(delta, handled + 1, handled === basicLength);
        delta = 0;
        handled++;
      }
    }
    delta++;
    n++;
  }
  return output;
}

/** Decodes Punycode (without the `xn--` prefix) into a string of code points, or null when malformed. */
export function punycodeDecode(encoded: string): string | null {
  const lastDelimiter = encoded.lastIndexOf('-');
  const basic = lastDelimiter < 0 ? '' : encoded.slice(0, lastDelimiter);
  if (Array.from(basic).some((ch) => ch.charCodeAt(0) > 0x7f)) return null;
  const output = Array.from(basic, (ch) => ch.codePointAt(0) ?? 0);
  let n = INITIAL_N;
  let i = 0;
  let bias = INITIAL_BIAS;
  for (let index = lastDelimiter < 0 ? 0 : lastDelimiter + 1; index < encoded.length; ) {
    const oldI = i;
    let w = 1;
    for (let k = BASE; ; k += BASE) {
      if (index >= encoded.length) return null;
      const digit = charToDigit(encoded.charCodeAt(index++));
      if (digit >= BASE) return null;
      i += digit * w;
      if (!Number.isSafeInteger(i)) return null;
      const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
      if (digit < t) break;
      w *= BASE - t;
    }
    bias = adapt(i - oldI, output.length + 1, oldI === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > MAX_CODE_POINT || (n >= 0xd800 && n <= 0xdfff)) return null;
    output.splice(i, 0, n);
    i++;
  }
  return String.fromCodePoint(...output);
}
