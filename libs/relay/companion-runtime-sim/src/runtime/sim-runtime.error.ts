/**
 * The failures the simulated runtime reports. They are `AgentRuntimeError`s: only `code` and
 * `retryable` reach a browser; the message (which carries the sentinel, like a real runtime's local
 * error text can carry paths or tokens) stays local.
 */
import { AgentRuntimeError } from '@trustmesh/relay-companion';

import type { SecretMarker } from './secret-marker';

export const SIM_RUNTIME_ERROR_CODES = {
  THREAD_NOT_FOUND: 'THREAD_NOT_FOUND',
  TURN_NOT_FOUND: 'TURN_NOT_FOUND',
  TURN_ALREADY_ACTIVE: 'TURN_ALREADY_ACTIVE',
  TURN_ID_IN_USE: 'TURN_ID_IN_USE',
  SERVER_REQUEST_NOT_PENDING: 'SERVER_REQUEST_NOT_PENDING',
  SERVER_REQUEST_MISMATCH: 'SERVER_REQUEST_MISMATCH',
  APP_RESULTS_UNSUPPORTED: 'APP_RESULTS_UNSUPPORTED',
  THREAD_LIMIT_REACHED: 'THREAD_LIMIT_REACHED',
  RUNTIME_STOPPED: 'RUNTIME_STOPPED',
} as const;

export type SimRuntimeErrorCode = keyof typeof SIM_RUNTIME_ERROR_CODES;

export function simRuntimeError(marker: SecretMarker, code: SimRuntimeErrorCode, detail: string, retryable = false): AgentRuntimeError {
  return new AgentRuntimeError(code, marker.text(detail), retryable);
}
