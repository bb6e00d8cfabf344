/**
 * The answer to a refused attempt, framework-free: an RFC 7807 problem body (429 Too Many Requests, stable
 * code RATE_LIMITED) and the headers that go with it (`Retry-After` in whole seconds, RFC 9110 §10.2.3).
 * The card registry answers its per-IP and per-credential limits this way (CARDS.md "Rate limits": 429 +
 * `Retry-After` + RFC 7807); the body repeats the wait so a client that drops headers still knows it.
 */
import type { RateDecision } from './window-rate.limiter';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const RATE_LIMITED_CODE = 'RATE_LIMITED';

export interface RateLimitedProblem {
  /** `about:blank`: the HTTP status says it all (RFC 7807 §4.2), `code` is the stable machine code. */
  type: 'about:blank';
  title: 'Too Many Requests';
  status: 429;
  code: typeof RATE_LIMITED_CODE;
  detail: string;
  retryAfterSeconds: number;
}

/** The 429 body for a refused decision; `detail` says, for a person, what was limited and what to do. */
export function rateLimitedProblem(decision: Pick<RateDecision, 'retryAfterSeconds'>, detail: string): RateLimitedProblem {
  return { type: 'about:blank', title: 'Too Many Requests', status: 429, code: RATE_LIMITED_CODE, detail, retryAfterSeconds: decision.retryAfterSeconds };
}

/** Headers for a 429 carrying `rateLimitedProblem(...)`. */
export function rateLimitedHeaders(decision: Pick<RateDecision, 'retryAfterSeconds'>): Record<'Content-Type' | 'Retry-After', string> {
  return { 'Content-Type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`, 'Retry-After': String(decision.retryAfterSeconds) };
}
