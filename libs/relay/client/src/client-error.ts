/**
 * Errors the client reports (BEHAVIOUR.md §10). Three kinds come from the protocol:
 * - `transport`: the local codes of §10 (`BROWSER_LOCAL_ERRORS`), raised by the client itself;
 * - `session`: a Control `session.error` code from the relay;
 * - `remote`: a Wire `runtime.response.error` code from the Companion (or the Runtime).
 * A fourth, `usage`, is for calls the client refuses before anything is sent (bad params, an interaction
 * that is no longer offered). Messages are fixed per code: no peer text is ever shown.
 */
import { BROWSER_LOCAL_ERRORS, type BrowserLocalErrorCode, type FrameIssue } from '@trustmesh/relay-protocol';

export type RelayClientErrorKind = 'transport' | 'session' | 'remote' | 'usage';

export type UsageErrorCode = 'INVALID_REQUEST' | 'INTERACTION_UNKNOWN' | 'INTERACTION_NOT_PENDING' | 'INTERACTION_EXPIRED' | 'CLIENT_MISCONFIGURED';

const LOCAL_MESSAGES: Readonly<Record<BrowserLocalErrorCode, string>> = {
  ABORTED: 'The request was aborted before it was sent.',
  CLIENT_CLOSED: 'The client was closed.',
  CONNECTION_UNAVAILABLE: 'There is no connection to the relay.',
  INVALID_SESSION: 'The session descriptor is invalid or expired.',
  OUTCOME_UNKNOWN: 'The request was sent, but its outcome is unknown.',
  PROTOCOL_ERROR: 'The relay or the companion broke the protocol.',
  REQUEST_TIMEOUT: 'The request timed out before it could be sent.',
  TRANSPORT_ERROR: 'The connection to the relay failed.',
  WORKSPACE_OFFLINE: 'The workspace is offline.',
};

const USAGE_MESSAGES: Readonly<Record<UsageErrorCode, string>> = {
  INVALID_REQUEST: 'The request is invalid and was not sent.',
  INTERACTION_UNKNOWN: 'There is no such interaction in this session.',
  INTERACTION_NOT_PENDING: 'The interaction is not waiting for an answer.',
  INTERACTION_EXPIRED: 'The interaction has expired.',
  CLIENT_MISCONFIGURED: 'The client configuration does not fit this session.',
};

export class RelayClientError extends Error {
  override readonly name = 'RelayClientError';

  constructor(
    readonly kind: RelayClientErrorKind,
    readonly code: string,
    readonly retryable: boolean,
    message: string,
    /** Details for PROTOCOL_ERROR and usage errors: which value broke which rule. */
    readonly issues: readonly FrameIssue[] = [],
  ) {
    super(message);
  }

  static local(code: BrowserLocalErrorCode, issues: readonly FrameIssue[] = [], retryable: boolean = BROWSER_LOCAL_ERRORS[code]): RelayClientError {
    return new RelayClientError('transport', code, retryable, LOCAL_MESSAGES[code], issues);
  }

  static session(code: string, retryable: boolean): RelayClientError {
    return new RelayClientError('session', code, retryable, `The relay ended the session (${code}).`);
  }

  static remote(code: string, retryable: boolean): RelayClientError {
    return new RelayClientError('remote', code, retryable, `The request failed remotely (${code}).`);
  }

  static usage(code: UsageErrorCode, issues: readonly FrameIssue[] = []): RelayClientError {
    return new RelayClientError('usage', code, false, USAGE_MESSAGES[code], issues);
  }
}
