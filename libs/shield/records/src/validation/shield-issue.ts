/**
 * How the Shield refuses: every rejected input or record is a list of issues, each a stable code, a JSON
 * pointer (RFC 6901) to the offending place, and a message a person can act on. Messages name fields and
 * bounds, never the submitted value: consult input may be private (§12).
 */

/** Every issue code the records library reports, with what it means. Codes never change meaning. */
export const SHIELD_ISSUE_CODES = {
  SHIELD_FIELD_REQUIRED: 'A required field is missing (or is undefined).',
  SHIELD_FIELD_UNKNOWN: 'A field that the input or record does not define (§2: every object rejects unknown keys).',
  SHIELD_FIELD_TYPE:
    'A value has the wrong JSON type: null where a value is required or optional (§2: optional fields are omitted, never null), an array or a non-plain object where a JSON object is expected, a number where a string is expected, a non-integer count.',
  SHIELD_FIELD_TOO_SHORT: 'A string is shorter than its minimum after trimming (§2: "  " fails a minimum of 1).',
  SHIELD_FIELD_TOO_LONG: 'A string is longer than its maximum after trimming, counted in Unicode code points as JSON Schema counts.',
  SHIELD_STRING_MALFORMED: 'A string holds an unpaired UTF-16 surrogate, which has no UTF-8 form and cannot be stored or hashed (§8.1).',
  SHIELD_FIELD_ENUM: 'A value outside the field\'s allowed values (or not the constant the field requires, e.g. protocolVersion "0.1").',
  SHIELD_ID_INVALID: 'An id that is not a UUID of §2 (8-4-4-4-12 hex digits, version 1-8, variant 8/9/a/b, or the nil / all-f UUID).',
  SHIELD_TIMESTAMP_INVALID: 'A timestamp that is not of the §8.3 form: a real calendar date, hours 00-23, `Z` only.',
  SHIELD_DIGEST_INVALID: 'An inputDigest that is not 43 base64url characters (§8.1).',
  SHIELD_NUMBER_OUT_OF_RANGE: 'A number outside its bounds (a confidence outside 0-1, a negative token count).',
  SHIELD_LIST_TOO_SHORT: 'A list with fewer items than its minimum (an analysis needs at least one rationale and one next step).',
  SHIELD_LIST_TOO_LONG: 'A list in an input or record with more items than its maximum (e.g. 50 facts in one consult input).',
  SHIELD_CASE_LIMIT_EXCEEDED: 'The case would hold more items than its maxima (§3, §4, §6: 100 facts, 100 evidence, 50 policies, 50 guidance); nothing changed.',
  SHIELD_TOO_MANY_ISSUES: 'Reporting stopped after 100 issues; fix these and submit again.',
  SHIELD_CASE_NOT_FOUND: 'The case does not exist ("Shield case not found").',
  SHIELD_CASE_EXISTS: 'A case with this id was already opened.',
  SHIELD_CASE_CLOSED: 'The case is closed and refuses consultations and guidance ("Shield case is closed", §5).',
  SHIELD_CASE_ALREADY_CLOSED: 'The case is closed and already has its outcome ("Shield case is already closed", §7).',
} as const;

export type ShieldIssueCode = keyof typeof SHIELD_ISSUE_CODES;

export interface ShieldIssue {
  code: ShieldIssueCode;
  /** JSON pointer (RFC 6901) into the input or record; "" is the whole value. */
  path: string;
  message: string;
}

export type ShieldResult<T> = { ok: true; value: T } | { ok: false; issues: ShieldIssue[] };

/** Beyond this many issues, one SHIELD_TOO_MANY_ISSUES closes the list: a hostile input cannot make the answer huge. */
export const MAX_SHIELD_ISSUES = 100;

/** Appends a reference token to a JSON pointer, escaping `~` and `/` (RFC 6901 §3). */
export function pointerTo(parent: string, token: string | number): string {
  return `${parent}/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}
