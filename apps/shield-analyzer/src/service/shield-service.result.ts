/**
 * What every application-service call returns, whatever the transport: a value, or a failure with a kind
 * each transport maps to its own status (REST 400/401/403/404/409, gRPC codes) and the `{ code, path,
 * message }` issues of `@trustmesh/shield-records`. Messages name fields and rules, never submitted values
 * (consult input may be private, SHIELD.md §12).
 */
import { isDatabaseUnavailable } from '@trustmesh/platform-database';
import type { ShieldIssue } from '@trustmesh/shield-records';

export type ShieldFailureKind = 'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict';

export interface ServiceIssue {
  code: string;
  path: string;
  message: string;
}

export interface ShieldFailure {
  kind: ShieldFailureKind;
  error: string;
  issues: ServiceIssue[];
}

export type ServiceResult<T> = { ok: true; value: T } | { ok: false; failure: ShieldFailure };

export const succeed = <T>(value: T): ServiceResult<T> => ({ ok: true, value });

export function fail<T>(kind: ShieldFailureKind, code: string, message: string, path = ''): ServiceResult<T> {
  return { ok: false, failure: { kind, error: message, issues: [{ code, path, message }] } };
}

/** A records-library refusal: not-found codes become `not_found`, everything else (closed included, §5) `invalid`. */
export function fromIssues<T>(issues: readonly ShieldIssue[]): ServiceResult<T> {
  const kind: ShieldFailureKind = issues.some((issue) => issue.code === 'SHIELD_CASE_NOT_FOUND') ? 'not_found' : 'invalid';
  const error = kind === 'not_found' ? 'Shield case not found' : issues.length === 1 && issues[0] ? issues[0].message : `${issues.length} problems with the input`;
  return { ok: false, failure: { kind, error, issues: issues.map(({ code, path, message }) => ({ code, path, message })) } };
}

/**
 * The refusal of a call the service could not run because its database is unreachable (a restart, a
 * failover, a network cut): nothing was stored, and the same call may succeed shortly. Transports answer
 * 503 (with Retry-After) and gRPC UNAVAILABLE instead of an internal error, so callers and load balancers
 * retry rather than report a fault.
 */
export const UNAVAILABLE: ServiceIssue = { code: 'SHIELD_UNAVAILABLE', path: '', message: 'The Shield cannot reach its database right now; retry shortly' };

/** Whether `error`, thrown by a call, says the infrastructure was unavailable rather than that the call was wrong. */
export const isUnavailable = (error: unknown): boolean => isDatabaseUnavailable(error);
