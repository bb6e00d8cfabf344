/**
 * What every application-service call returns: a value, or a failure with a kind the HTTP edge maps to a
 * status, a stable machine code, and issues `{path (JSON Pointer), code, severity, message}` (CARDS.md §5
 * "Validation errors"). Messages name fields and rules, never internal error text.
 */
import { isDatabaseUnavailable } from '@trustmesh/platform-database';

import type { Refusal } from '../domain/registry-namespace.aggregate';

/** `exhausted`: a rate limit or quota (429 / RESOURCE_EXHAUSTED); its `extra.retryAfterSeconds` says how long to wait. */
export type FailureKind = 'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'unprocessable' | 'gone' | 'exhausted';

export interface ProblemIssue {
  path: string;
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface ServiceFailure {
  kind: FailureKind;
  code: string;
  detail: string;
  issues: ProblemIssue[];
  /** Members added to the problem document (a tombstone, the warnings of a refused document). */
  extra?: Record<string, unknown>;
}

export type ServiceResult<T> = { ok: true; value: T } | { ok: false; failure: ServiceFailure };

export const succeed = <T>(value: T): ServiceResult<T> => ({ ok: true, value });

export function fail<T>(kind: FailureKind, code: string, message: string, path = ''): ServiceResult<T> {
  return { ok: false, failure: { kind, code, detail: message, issues: [{ path, code, severity: 'error', message }] } };
}

export const fromRefusal = <T>(refusal: Refusal): ServiceResult<T> => fail(refusal.kind, refusal.code, refusal.message, refusal.path);

export const UNAVAILABLE = { code: 'REGISTRY_UNAVAILABLE', message: 'The registry cannot reach its database right now; retry shortly' };

/** Whether `error`, thrown by a call, says the infrastructure was unavailable rather than that the call was wrong. */
export const isUnavailable = (error: unknown): boolean => isDatabaseUnavailable(error);
