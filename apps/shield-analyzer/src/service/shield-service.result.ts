/**
 * What every application-service call returns, whatever the transport: a value, or a failure with a kind
 * each transport maps to its own status (REST 400/401/403/404/409, gRPC codes) and the `{ code, path,
 * message }` issues of `@trustmesh/shield-records`. Messages name fields and rules, never submitted values
 * (consult input may be private, SHIELD.md §12).
 */
import { isDatabaseUnavailable } from '@trustmesh/platform-database';
import { DEFAULT_MAX_JSON_DEPTH, type StrictJsonIssue, type StrictJsonIssueCode } from '@trustmesh/shared-strict-json';
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
/**
 * Why a body or input field is not one JSON value this service acts on, as one `SHIELD_BODY_NOT_JSON` issue:
 * the strict reader's reason in words of our own (its messages quote keys, and a refusal never echoes input)
 * and its pointer, so a person can find the spot.
 */
const NOT_JSON_REASONS: Record<StrictJsonIssueCode, string> = {
  JSON_SYNTAX: 'is not valid JSON',
  JSON_TOO_DEEP: `nests arrays and objects more than ${DEFAULT_MAX_JSON_DEPTH} deep`,
  JSON_DUPLICATE_KEY: 'has an object with the same key twice; each key may appear once',
  JSON_LONE_SURROGATE: 'holds a string with an unpaired UTF-16 surrogate; text must be valid Unicode',
  JSON_UNSAFE_INTEGER: 'holds an integer beyond ±(2^53 − 1); send it as a string',
};

export function notJsonIssue(what: string, issue?: StrictJsonIssue): ServiceIssue {
  const message = `${what} must be one JSON value (UTF-8)${issue ? `: it ${NOT_JSON_REASONS[issue.code]}` : ''}`;
  return { code: 'SHIELD_BODY_NOT_JSON', path: issue?.pointer ?? '', message };
}

export const UNAVAILABLE: ServiceIssue = { code: 'SHIELD_UNAVAILABLE', path: '', message: 'The Shield cannot reach its database right now; retry shortly' };

/** Whether `error`, thrown by a call, says the infrastructure was unavailable rather than that the call was wrong. */
export const isUnavailable = (error: unknown): boolean => isDatabaseUnavailable(error);
