/**
 * Error codes of the protocol with their retryability (BEHAVIOUR.md §10).
 *
 * Messages crossing the wire are fixed, generic strings per code: local error text never crosses the
 * relay, so `wireError()` is the only way this library builds a `runtime.response.error`.
 */
import { CONTROL_REGISTRY, WIRE_REGISTRY } from '../generated/registry';
import type { WireVersion } from '../wire-version';

type SchemaErrorCode = keyof (typeof WIRE_REGISTRY)['1.2']['errorRetryability'];

/** Codes a Companion may put in `runtime.response.error` (Runtime pass-through codes aside). */
export type WireErrorCode = SchemaErrorCode | 'REMOTE_REQUEST_DENIED';

const WIRE_ERROR_MESSAGES: Readonly<Record<WireErrorCode, string>> = {
  RELAY_PROTOCOL_VERSION_UNSUPPORTED: 'The relay protocol version is not supported.',
  RELAY_INVALID_FRAME: 'The frame is invalid.',
  INVALID_PARAMS: 'The request parameters are invalid.',
  RELAY_REQUEST_ID_CONFLICT: 'The request id was already used for a different request.',
  WORKSPACE_NOT_FOUND: 'The workspace is not served here.',
  RELAY_ENCRYPTION_REQUIRED: 'This workspace accepts encrypted requests only.',
  ENCRYPTED_PAYLOAD_INVALID: 'The encrypted payload could not be opened.',
  LocalApprovalDeniedError: 'The request was denied by local policy.',
  LocalConfirmationRequiredError: 'The request needs confirmation on the device.',
  COMPANION_ERROR: 'The companion could not complete the request.',
  REMOTE_REQUEST_DENIED: 'The companion does not accept this request remotely.',
};

export interface WireError {
  code: string;
  message: string;
  retryable: boolean;
}

/**
 * Retryability of a wire error code: from the version's registry, `false` for
 * `REMOTE_REQUEST_DENIED` (1.1+), `undefined` for codes the registry does not know.
 */
export function wireErrorRetryability(version: WireVersion, code: string): boolean | undefined {
  const registry: Readonly<Record<string, boolean>> = WIRE_REGISTRY[version].errorRetryability;
  if (Object.prototype.hasOwnProperty.call(registry, code)) return registry[code];
  if (code === 'REMOTE_REQUEST_DENIED' && version !== '1.0') return false;
  return undefined;
}

/** A protocol error with its fixed message. All protocol codes are non-retryable (§10). */
export function wireError(code: WireErrorCode): WireError {
  return { code, message: WIRE_ERROR_MESSAGES[code], retryable: false };
}

/**
 * A Runtime failure passed through: only its code (or `JSON_RPC_<n>`) and `retryable` cross; the
 * Runtime's message never does.
 */
export function runtimeError(code: string | number, retryable = false): WireError {
  const wireCode = typeof code === 'number' ? `JSON_RPC_${code}` : code;
  return { code: wireCode, message: 'The runtime reported an error.', retryable };
}

export type SessionErrorCode = (typeof CONTROL_REGISTRY.sessionErrorCodes)[number];

/**
 * Suggested `session.error` retryability (a policy, §10). `RELAY_PROTOCOL_VERSION_UNSUPPORTED` is
 * retryable only when a reconnect would renegotiate, which the caller knows.
 */
export function sessionErrorRetryable(code: SessionErrorCode, reconnectWouldRenegotiate = false): boolean {
  switch (code) {
    case 'WORKSPACE_NOT_FOUND':
    case 'CONTROLLER_CONFLICT':
      return false;
    case 'WORKSPACE_OFFLINE':
    case 'RATE_LIMITED':
    case 'RELAY_INTERNAL_ERROR':
      return true;
    case 'RELAY_PROTOCOL_VERSION_UNSUPPORTED':
      return reconnectWouldRenegotiate;
  }
}

/** Refusals at the browser's HTTP upgrade, with the status the relay answers (§10, a policy). */
export const HANDSHAKE_ERRORS = {
  SESSION_TICKET_INVALID: 401,
  SESSION_TICKET_EXPIRED: 401,
  SESSION_TICKET_ALREADY_USED: 401,
  ORIGIN_NOT_ALLOWED: 403,
} as const;
export type HandshakeErrorCode = keyof typeof HANDSHAKE_ERRORS;

/** Browser close codes (§10); the relay reuses them. */
export const CLOSE_CODES = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  INVALID_FRAME: 4002,
  SESSION_ERROR_FATAL: 4008,
  SESSION_ERROR_RETRYABLE: 4012,
} as const;

/** Errors a browser client raises locally, and whether each is retryable (§10). */
export const BROWSER_LOCAL_ERRORS = {
  ABORTED: false,
  CLIENT_CLOSED: false,
  CONNECTION_UNAVAILABLE: true,
  INVALID_SESSION: false,
  OUTCOME_UNKNOWN: false,
  PROTOCOL_ERROR: false,
  REQUEST_TIMEOUT: true,
  TRANSPORT_ERROR: true,
  WORKSPACE_OFFLINE: true,
} as const;
export type BrowserLocalErrorCode = keyof typeof BROWSER_LOCAL_ERRORS;
