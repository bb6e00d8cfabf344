/**
 * String length as JSON Schema counts it (`minLength`/`maxLength`): code points, a surrogate pair being
 * one. Ajv's own counter reads every code unit in JavaScript, and message texts, deltas and snapshots
 * made it a measurable part of validating a frame. A string without a high surrogate has as many code
 * points as code units, and one native search answers that; only the others are counted, exactly as
 * Ajv counts them (a lone surrogate is one code point).
 */
import ajvLength from 'ajv/dist/runtime/ucs2length';

const HIGH_SURROGATE = /[\ud800-\udbff]/;

export function ucs2length(text: string): number {
  return HIGH_SURROGATE.test(text) ? ajvLength(text) : text.length;
}
