/**
 * Fixed-window rate limits per key (a source address, a credential id...): `limit` attempts per
 * `windowSeconds`, counted in this process's memory. Every attempt counts, allowed or not, so hammering
 * a refused key keeps it refused until its window ends. The table is bounded (`maxKeys`): when it is full,
 * expired windows are swept, and if none expired the oldest entry goes, so a flood of fresh keys costs
 * memory up to the bound and no more.
 *
 * Several windows on one key (the card registry's "60 per minute and 1000 per hour", CARDS.md "Rate
 * limits") combine with `CombinedRateLimiter`; `TokenBucketRateLimiter` is the burst-then-steady variant.
 */
export interface RateDecision {
  allowed: boolean;
  /**
   * Whole seconds, at least 1. Refused: how long to wait (`Retry-After`); an attempt after that is allowed
   * unless others spent the allowance meanwhile. Allowed: until the full limit is available again.
   */
  retryAfterSeconds: number;
  /** Attempts left in the current window after this one (0 when refused). */
  remaining: number;
  /** Attempts allowed per window. */
  limit: number;
}

export interface RateLimiter {
  /** Counts one attempt under `key` and says whether it is within the limit. */
  take(key: string): RateDecision;
  /**
   * Gives back one allowed attempt taken under `key` that turned out not to count (a sign-in that
   * succeeded, when only failures should use up the allowance). Counting every attempt first and refunding
   * afterwards, rather than counting only after the outcome, means attempts in flight together cannot all
   * pass the check before any is counted. A key with nothing taken, or whose window has passed, is left alone.
   */
  refund(key: string): void;
}

export interface WindowRateLimiterOptions {
  /** Attempts allowed per window per key; a positive integer. */
  limit: number;
  /** Window length in seconds; a positive integer. */
  windowSeconds: number;
  /** Keys tracked at once (default 100,000). */
  maxKeys?: number;
  /** Clock in epoch milliseconds (tests inject one). */
  now?: () => number;
}

export const DEFAULT_MAX_TRACKED_KEYS = 100_000;

export class WindowRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  /** Throws a RangeError on a limit, window or bound that is not a positive integer: a startup mistake. */
  constructor(options: WindowRateLimiterOptions) {
    const { limit, windowSeconds, maxKeys = DEFAULT_MAX_TRACKED_KEYS } = options;
    for (const [name, value] of [
      ['limit', limit],
      ['windowSeconds', windowSeconds],
      ['maxKeys', maxKeys],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`WindowRateLimiter: ${name} must be a positive integer`);
    }
    this.limit = limit;
    this.windowMs = windowSeconds * 1000;
    this.maxKeys = maxKeys;
    this.now = options.now ?? (() => Date.now());
  }

  take(key: string): RateDecision {
    const now = this.now();
    let entry = this.windows.get(key);
    if (!entry || now - entry.startedAt >= this.windowMs) {
      if (!entry && this.windows.size >= this.maxKeys) this.sweep(now);
      entry = { startedAt: now, count: 0 };
      this.windows.set(key, entry);
    }
    // Saturate instead of counting forever: a key refused a million times still reads "refused".
    if (entry.count <= this.limit) entry.count += 1;
    const retryAfterSeconds = Math.max(1, Math.ceil((entry.startedAt + this.windowMs - now) / 1000));
    const allowed = entry.count <= this.limit;
    return { allowed, retryAfterSeconds, remaining: allowed ? this.limit - entry.count : 0, limit: this.limit };
  }

  refund(key: string): void {
    const entry = this.windows.get(key);
    if (!entry || this.now() - entry.startedAt >= this.windowMs || entry.count === 0) return;
    // A saturated count (limit + 1) holds refused attempts too: the one refunded was an allowed one.
    entry.count = Math.min(entry.count, this.limit) - 1;
  }

  /** Keys currently tracked (for metrics and tests of the bound). */
  get trackedKeys(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.windows) if (now - entry.startedAt >= this.windowMs) this.windows.delete(key);
    if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value as string);
  }
}

/**
 * Several limits on the same key, e.g. per minute and per hour: an attempt is allowed only when every
 * limit allows it, and it counts against each limit that takes it. When refused, `retryAfterSeconds` is
 * the longest wait among the limits that refused or are now spent (an attempt one of them refused may
 * still have spent another's last attempt), so waiting that long is enough; when allowed, the decision
 * reported is the limit with the fewest attempts left, so `remaining` never overstates.
 */
export class CombinedRateLimiter implements RateLimiter {
  constructor(private readonly limiters: readonly [RateLimiter, ...RateLimiter[]]) {}

  take(key: string): RateDecision {
    const decisions = this.limiters.map((limiter) => limiter.take(key));
    if (decisions.every((decision) => decision.allowed)) {
      return decisions.reduce((tightest, decision) => (decision.remaining < tightest.remaining ? decision : tightest));
    }
    const blocking = decisions.filter((decision) => !decision.allowed || decision.remaining === 0);
    const longest = blocking.reduce((max, decision) => (decision.retryAfterSeconds > max.retryAfterSeconds ? decision : max));
    return { allowed: false, retryAfterSeconds: longest.retryAfterSeconds, remaining: 0, limit: longest.limit };
  }

  refund(key: string): void {
    for (const limiter of this.limiters) limiter.refund(key);
  }
}
