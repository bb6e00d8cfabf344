/**
 * What the relay lets through of a Companion's `runtime.response` (BEHAVIOUR.md §4, §9, §10), for the session
 * that sent the request:
 *
 * - a `result` must pass the result schema of the request's method (the route back remembers it) in the
 *   Companion's version, and, for a 1.1 session behind a 1.2 Companion, again in 1.1 after the downgrade (§2);
 *   a result whose method the relay cannot know (the request was encrypted) cannot be checked and is refused;
 * - an `error` crosses with its code and `retryable` only: the message becomes the fixed one of its code (a
 *   protocol code's own, and never retryable; the generic Runtime one otherwise), so local text never
 *   crosses; a code that is not a plain token (a sentence, a path) is refused;
 * - anything refused is answered with the protocol's error for a result the relay-side projection rejects,
 *   `COMPANION_ERROR` (§9 "fails closed", §10), so the requester gets an answer instead of a timeout, and the
 *   refused result is never forwarded.
 *
 * Result and error together are left as the Companion sent them once both are valid (§3 deferred rule: the
 * browser takes the error). What goes on is the checked value, serialized again, never the received text: a
 * text with a duplicate key (the parser keeps the last) would carry the first, unchecked one along.
 * Pure: no I/O.
 */
import {
  downgradeFrameTo11,
  runtimeError,
  validateMethodResult,
  wireError,
  wireErrorRetryability,
  type WireErrorCode,
  type WireVersion,
  type Wire12,
} from '@trustmesh/relay-protocol';

/** Stable codes of the refusals, counted in `relay_rejections_total{socket="companion"}`. */
export type ResponseRefusal = 'RESPONSE_RESULT_INVALID' | 'RESPONSE_RESULT_UNCHECKABLE' | 'RESPONSE_DOWNGRADE_INVALID' | 'RESPONSE_ERROR_CODE_INVALID';

export type ResponseVerdict =
  /** `text` is the checked response, serialized from the checked value. */
  | { ok: true; text: string }
  /** `text` is the `COMPANION_ERROR` response to send instead. */
  | { ok: false; refusal: ResponseRefusal; text: string };

interface PlainResponse {
  type: 'runtime.response';
  requestId: string;
  workspaceId: string;
  result?: unknown;
  error?: { code: string; message: string; retryable: boolean };
}

/** A Runtime code or `JSON_RPC_<n>` (§10): a token, never text. */
const ERROR_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Checks a schema-valid `runtime.response` of a Companion speaking `from` for a session speaking `to`;
 * `method` is the request's (undefined when the request was encrypted).
 */
export function checkCompanionResponse(frame: PlainResponse, method: string | undefined, from: WireVersion, to: WireVersion): ResponseVerdict {
  let out: PlainResponse = frame;
  if (frame.result !== undefined) {
    if (method === undefined) return refuse(frame, 'RESPONSE_RESULT_UNCHECKABLE');
    if (!validateMethodResult(from, method, frame.result).ok) return refuse(frame, 'RESPONSE_RESULT_INVALID');
  }
  if (frame.error !== undefined) {
    const { code, retryable } = frame.error;
    if (!ERROR_CODE.test(code)) return refuse(frame, 'RESPONSE_ERROR_CODE_INVALID');
    // Protocol codes are never retryable (§10); a Runtime's code keeps its own `retryable`.
    const fixed = wireErrorRetryability(from, code) === undefined ? runtimeError(code, retryable) : wireError(code as WireErrorCode);
    if (fixed.message !== frame.error.message || fixed.retryable !== retryable) out = { ...out, error: fixed };
  }
  if (to === '1.1' && from === '1.2') {
    const downgraded = downgradeFrameTo11(out as Wire12.WireFrame, () => method);
    if (!downgraded.ok) return refuse(frame, 'RESPONSE_DOWNGRADE_INVALID');
    out = downgraded.value as PlainResponse;
  }
  return { ok: true, text: JSON.stringify(out) };
}

/** The relay's answer to a request whose response it refused. */
export function companionErrorResponse(requestId: string, workspaceId: string): string {
  return JSON.stringify({ type: 'runtime.response', requestId, workspaceId, error: wireError('COMPANION_ERROR') });
}

function refuse(frame: PlainResponse, refusal: ResponseRefusal): ResponseVerdict {
  return { ok: false, refusal, text: companionErrorResponse(frame.requestId, frame.workspaceId) };
}
