/**
 * Redeem attempts per source address: a fixed window per address (RELAY_ENROLLMENT_RATE_LIMIT attempts per
 * RELAY_ENROLLMENT_RATE_WINDOW_SECONDS), counted in this replica's memory. Every attempt counts, valid or
 * not, so guessing codes costs the guesser the window. The table is bounded: when it is full, expired
 * windows are swept, and if none expired the oldest entry goes.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
}

const MAX_TRACKED_SOURCES = 100_000;

export class RedeemRateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  take(source: string): RateDecision {
    const now = this.now();
    const windowMs = this.windowSeconds * 1000;
    let entry = this.windows.get(source);
    if (!entry || now - entry.startedAt >= windowMs) {
      if (!entry && this.windows.size >= MAX_TRACKED_SOURCES) this.sweep(now, windowMs);
      entry = { startedAt: now, count: 0 };
      this.windows.set(source, entry);
    }
    entry.count += 1;
    const retryAfterSeconds = Math.max(1, Math.ceil((entry.startedAt + windowMs - now) / 1000));
    return { allowed: entry.count <= this.limit, retryAfterSeconds };
  }

  private sweep(now: number, windowMs: number): void {
    for (const [source, entry] of this.windows) if (now - entry.startedAt >= windowMs) this.windows.delete(source);
    if (this.windows.size >= MAX_TRACKED_SOURCES) this.windows.delete(this.windows.keys().next().value as string);
  }
}
