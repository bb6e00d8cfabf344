/**
 * `/healthz` and `/readyz` as every app answers them, on its public port and on its operator port.
 *
 * The rules they keep (the decision is written down in each app's README, "Probes"):
 * - **Constant cost.** `/healthz` touches nothing. `/readyz` answers from `cachedReadiness`: one check of
 *   the database and the bus at a time (callers during a check share it) and its answer reused for a
 *   second, so a thousand requests a second cost what one does; the checks never multiply with traffic.
 * - **Never refused to an orchestrator.** The operator port (not published: loopback or the pod's own
 *   interface) answers every probe, unlimited. On the public port each source address (X-Forwarded-For
 *   followed only through the app's trusted proxies) has a bucket of its own, generous enough that a
 *   kubelet or a balancer probing every second never reaches it (60 at once, 10 more a second); an
 *   internet client that hammers the probes gets 429 `RATE_LIMITED` + `Retry-After`, and only itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { rateLimitedHeaders, rateLimitedProblem, sourceAddress, sourceKey, TokenBucketRateLimiter, TrustedProxies, type RateLimiter } from '@trustmesh/platform-rate-limits';

import { sendJson, type ReadinessAnswer } from './operator.server';

/** How long one readiness answer is reused. */
export const READINESS_MAX_AGE_MS = 1_000;
/** Per source address on the public port: a burst of 60, then 10 a second. */
export const PUBLIC_PROBE_LIMIT = { capacity: 60, refillPerSecond: 10 } as const;

const NOT_READY: ReadinessAnswer = { status: 503, body: { status: 'not-ready' } };

/**
 * `check` run at most once at a time, its answer reused for `maxAgeMs` after it came; a check that throws
 * is not ready (and says nothing of why: its text may be internal).
 */
export function cachedReadiness(check: () => Promise<ReadinessAnswer>, options: { maxAgeMs?: number; now?: () => number } = {}): () => Promise<ReadinessAnswer> {
  const maxAgeMs = options.maxAgeMs ?? READINESS_MAX_AGE_MS;
  const now = options.now ?? Date.now;
  let last: { answer: ReadinessAnswer; at: number } | undefined;
  let running: Promise<ReadinessAnswer> | undefined;
  return () => {
    if (last && now() - last.at < maxAgeMs) return Promise.resolve(last.answer);
    running ??= check()
      .catch(() => NOT_READY)
      .then((answer) => {
        last = { answer, at: now() };
        running = undefined;
        return answer;
      });
    return running;
  };
}

export interface PublicProbesOptions {
  /** The app's `cachedReadiness(...)`, the same function its operator port answers from. */
  readiness: () => Promise<ReadinessAnswer>;
  /** Proxies whose X-Forwarded-For hops are believed (none: the peer address is the source). */
  trustedProxies?: TrustedProxies;
  /** The per-source limiter (default: `PUBLIC_PROBE_LIMIT` token buckets). */
  limiter?: RateLimiter;
}

export class PublicProbes {
  /** The readiness these probes answer from, for the operator port to share. */
  readonly readiness: () => Promise<ReadinessAnswer>;
  private readonly limiter: RateLimiter;
  private readonly trustedProxies: TrustedProxies;

  constructor(options: PublicProbesOptions) {
    this.readiness = options.readiness;
    this.limiter = options.limiter ?? new TokenBucketRateLimiter(PUBLIC_PROBE_LIMIT);
    this.trustedProxies = options.trustedProxies ?? TrustedProxies.none;
  }

  /** Answers `GET /healthz` or `GET /readyz` on the public port. */
  async answer(probe: 'healthz' | 'readyz', request: IncomingMessage, response: ServerResponse): Promise<void> {
    const decision = this.limiter.take(`probe:${sourceKey(sourceAddress(request, this.trustedProxies))}`);
    if (!decision.allowed) {
      const body = JSON.stringify(rateLimitedProblem(decision, `Too many probe requests from your address; retry after ${decision.retryAfterSeconds} s`));
      response.writeHead(429, { ...rateLimitedHeaders(decision), 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store' });
      response.end(body);
      return;
    }
    if (probe === 'healthz') return sendJson(response, 200, { status: 'ok' });
    const { status, body } = await this.readiness().catch(() => NOT_READY);
    sendJson(response, status, body);
  }
}
