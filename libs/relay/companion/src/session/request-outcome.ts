/**
 * What a request settles to before it becomes a `runtime.response`: a result, or an error whose message
 * is the fixed text of its code (BEHAVIOUR.md §10). Runtime failures keep only their code (or
 * `JSON_RPC_<n>`) and `retryable`; anything else a handler throws is `COMPANION_ERROR`.
 */
import { runtimeError, wireError, type WireError, type WireErrorCode } from '@trustmesh/relay-protocol';

import { isAgentRuntimeError } from '../agent-runtime.port';

export type RequestOutcome = { result: unknown } | { error: WireError };

export const fail = (code: WireErrorCode): RequestOutcome => ({ error: wireError(code) });

export const succeed = (result: unknown): RequestOutcome => ({ result });

/** Runtime codes that may cross: identifiers, never text. */
const RUNTIME_CODE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The outcome of a failed Runtime call. */
export function runtimeFailure(error: unknown): RequestOutcome {
  if (!isAgentRuntimeError(error)) return fail('COMPANION_ERROR');
  const { code, retryable } = error;
  if (typeof code === 'number' ? !Number.isSafeInteger(code) : !RUNTIME_CODE.test(code)) return fail('COMPANION_ERROR');
  return { error: runtimeError(code, retryable === true) };
}

export const errorCodeOf = (outcome: RequestOutcome): string | null => ('error' in outcome ? outcome.error.code : null);

export const isRetryableError = (outcome: RequestOutcome): boolean => 'error' in outcome && outcome.error.retryable;
