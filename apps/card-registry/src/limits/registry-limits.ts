/**
 * The registry's rate limits at run time (CARDS.md §5 "Rate limits"), shared by the HTTP and the gRPC edge
 * so a client cannot double its allowance by switching transport: per source address (reads and writes
 * counted apart, reads more generous) before anything else is done, then per publisher credential on the
 * publisher's writes. A refusal is a service failure of kind `exhausted` with the stable code RATE_LIMITED
 * and the whole seconds to wait, which each edge answers in its own way (429 + Retry-After, or
 * RESOURCE_EXHAUSTED + retryAfterSeconds). Counted in this replica's memory.
 */
import { CombinedRateLimiter, RATE_LIMITED_CODE, sourceKey, WindowRateLimiter, type RateDecision, type RateLimiter, type TrustedProxies } from '@trustmesh/platform-rate-limits';

import type { RegistryCaller } from '../service/registry-callers';
import type { ServiceFailure } from '../service/registry-service.result';
import type { PerMinuteAndHour, RegistryLimitsConfig } from './registry-limits.config';

/** Reads answer public GETs (and the read RPCs); everything else is a write. */
export type RouteClass = 'read' | 'write';

function minuteAndHour(limits: PerMinuteAndHour, now?: () => number): RateLimiter {
  const clock = now ? { now } : {};
  return new CombinedRateLimiter([new WindowRateLimiter({ limit: limits.perMinute, windowSeconds: 60, ...clock }), new WindowRateLimiter({ limit: limits.perHour, windowSeconds: 3600, ...clock })]);
}

/** The failure every edge answers for a refused decision. */
export function rateLimited(decision: Pick<RateDecision, 'retryAfterSeconds'>, detail: string, code: string = RATE_LIMITED_CODE): ServiceFailure {
  return { kind: 'exhausted', code, detail, issues: [{ path: '', code, severity: 'error', message: detail }], extra: { retryAfterSeconds: decision.retryAfterSeconds } };
}

export class RegistryLimits {
  private readonly reads: RateLimiter;
  private readonly writes: RateLimiter;
  private readonly credentials: RateLimiter;

  constructor(
    private readonly config: RegistryLimitsConfig,
    now?: () => number,
  ) {
    this.reads = minuteAndHour(config.sourceReads, now);
    this.writes = minuteAndHour(config.sourceWrites, now);
    this.credentials = minuteAndHour(config.credential, now);
  }

  get trustedProxies(): TrustedProxies {
    return this.config.trustedProxies;
  }

  /** Counts one call from `address`; the refusal when the source is over its limit, else null. */
  admitSource(address: string, routeClass: RouteClass): ServiceFailure | null {
    const decision = (routeClass === 'read' ? this.reads : this.writes).take(`ip:${sourceKey(address)}`);
    return decision.allowed ? null : rateLimited(decision, `Too many ${routeClass === 'read' ? 'reads' : 'requests'} from your address; retry after ${decision.retryAfterSeconds} s`);
  }

  /** Counts one write by an authenticated caller; publisher credentials only (operators are few and known). */
  admitCaller(caller: RegistryCaller): ServiceFailure | null {
    if (caller.kind !== 'publisher') return null;
    const decision = this.credentials.take(`credential:${caller.credentialId}`);
    return decision.allowed ? null : rateLimited(decision, `Too many requests with this credential; retry after ${decision.retryAfterSeconds} s`);
  }
}
