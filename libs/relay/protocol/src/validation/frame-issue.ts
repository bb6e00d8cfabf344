/**
 * What a rejected frame reports: a stable code, the JSON pointer of the offending value, and a message
 * a person can act on. Codes never change meaning; messages may improve.
 */
export const FRAME_ISSUE_CODES = [
  /** The frame exceeds the byte limit; it was not parsed. */
  'FRAME_TOO_LARGE',
  /** A binary WebSocket frame, or bytes that are not UTF-8. */
  'FRAME_NOT_TEXT',
  /** The text is not JSON. */
  'FRAME_NOT_JSON',
  /** Arrays and objects nest deeper than `MAX_FRAME_DEPTH` (the frame object is level 1); it was not validated. */
  'FRAME_TOO_DEEP',
  /** An object of the frame has the same key twice (compared after unescaping); `path` is that object. */
  'FRAME_DUPLICATE_KEY',
  /** The JSON is not an object. */
  'FRAME_NOT_OBJECT',
  /** `type` names no frame of the version (or no message of the document) in force. */
  'FRAME_TYPE_UNKNOWN',
  /** The frame type may not travel in this direction on this socket. */
  'FRAME_DIRECTION_FORBIDDEN',
  /** A first-frame rule is broken (`device.connect` / `session.ready` first, and only once). */
  'FRAME_ORDER_VIOLATION',
  /** `workspaceId` is not the workspace the socket is bound to. */
  'WORKSPACE_MISMATCH',
  /** The `device.connect` version is not one this peer speaks. */
  'PROTOCOL_VERSION_UNSUPPORTED',
  /** A required property is missing. */
  'FIELD_REQUIRED',
  /** A property the schema does not allow (objects are closed; leaked Runtime data lands here). */
  'FIELD_NOT_ALLOWED',
  /** A value of the wrong JSON type. */
  'FIELD_TYPE',
  /** A value outside its constant or enumeration. */
  'FIELD_VALUE',
  /** A string that does not match its format (UUID, RFC 3339 date-time, URL, …). */
  'FIELD_FORMAT',
  /** A number, string or array outside its bounds. */
  'FIELD_RANGE',
  /** The request method is not recognised by the version in force. */
  'METHOD_UNKNOWN',
  /** Deferred rule `runtime.response-result-xor-error` (strict peers only). */
  'RESPONSE_RESULT_XOR_ERROR',
  /** Deferred rule `encrypted-payload-kind-required-metadata` (strict peers only). */
  'ENCRYPTED_METADATA_MISSING',
  /** Deferred rule `gap-from-not-after-through` (strict peers only). */
  'GAP_RANGE_INVERTED',
  /** A user-input form breaks a rule the JSON Schema cannot state (uniqueness, blanks, bounds). */
  'FORM_RULE_VIOLATION',
] as const;

export type FrameIssueCode = (typeof FRAME_ISSUE_CODES)[number];

export interface FrameIssue {
  code: FrameIssueCode;
  /** JSON pointer (RFC 6901) of the offending value; `""` is the whole frame. */
  path: string;
  message: string;
}

export type Verdict<T> = { ok: true; value: T } | { ok: false; issues: FrameIssue[] };

export const issue = (code: FrameIssueCode, path: string, message: string): FrameIssue => ({ code, path, message });

export const reject = <T>(...issues: FrameIssue[]): Verdict<T> => ({ ok: false, issues });

/** Appends one reference token to a JSON pointer, escaping `~` and `/`. */
export function pointerJoin(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** The value a JSON pointer designates inside `root`, or `undefined`. */
export function pointerGet(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}
