/**
 * Token-bucket limits per key (CARDS.md "Rate limits": per-IP and per-token buckets): a key may burst up
 * to `capacity` attempts, then gets `refillPerSecond` more each second. Unlike a fixed window there is no
 * edge where a client can spend two windows' worth in a moment. A refused attempt takes no token: the
 * wait it is told is exact, and retrying after it succeeds.
 *
 * The table is bounded like `WindowRateLimiter`'s: when full, buckets that have refilled completely are
 * dropped (a full bucket is the same as no bucket), and if none has, the oldest key goes.
 */
import { DEFAULT_MAX_TRACKED_KEYS, type RateDecision, type RateLimiter } from './window-rate.limiter';

// Refill rates such as 60 per minute are not exact in binary floating point: after exactly the wait it
// was told, a client must find its token, not 0.9999999 of one.
const EPSILON = 1e-6;

export interface TokenBucketRateLimiterOptions {
  /** Largest burst, and the `limit` reported; a positive integer. */
  capacity: number;
  /** Tokens added per second; a positive finite number (0.5 = one every two seconds). */
  refillPerSecond: number;
  /** Keys tracked at once (default 100,000). */
  maxKeys?: number;
  /** Clock in epoch milliseconds (tests inject one). */
  now?: () => number;
}

export class TokenBucketRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly capacity: number;
  private readonly perMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  /** Throws a RangeError on a capacity, rate or bound out of range: a startup mistake. */
  constructor(options: TokenBucketRateLimiterOptions) {
    const { capacity, refillPerSecond, maxKeys = DEFAULT_MAX_TRACKED_KEYS } = options;
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError('TokenBucketRateLimiter: capacity must be a positive integer');
    if (!Number.isFinite(refillPerSecond) || refillPerSecond <= 0) throw new RangeError('TokenBucketRateLimiter: refillPerSecond must be a positive number');
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) throw new RangeError('TokenBucketRateLimiter: maxKeys must be a positive integer');
    this.capacity = capacity;
    this.perMs = refillPerSecond / 1000;
    this.maxKeys = maxKeys;
    this.now = options.now ?? (() => Date.now());
  }

  take(key: string): RateDecision {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.sweep(now);
      bucket = { tokens: this.capacity, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = this.level(bucket, now);
      bucket.at = now;
    }
    if (bucket.tokens < 1 - EPSILON) {
      return { allowed: false, retryAfterSeconds: this.secondsUntil(1 - bucket.tokens), remaining: 0, limit: this.capacity };
    }
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    return { allowed: true, retryAfterSeconds: this.secondsUntil(this.capacity - bucket.tokens), remaining: Math.floor(bucket.tokens + EPSILON), limit: this.capacity };
  }

  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    const now = this.now();
    bucket.tokens = Math.min(this.capacity, this.level(bucket, now) + 1);
    bucket.at = now;
  }

  /** Keys currently tracked (for metrics and tests of the bound). */
  get trackedKeys(): number {
    return this.buckets.size;
  }

  private level(bucket: { tokens: number; at: number }, now: number): number {
    // A clock that steps back must not drain a bucket.
    return Math.min(this.capacity, bucket.tokens + Math.max(0, now - bucket.at) * this.perMs);
  }

  private secondsUntil(missingTokens: number): number {
    return Math.max(1, Math.ceil(missingTokens / this.perMs / 1000 - EPSILON));
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) if (this.level(bucket, now) >= this.capacity - EPSILON) this.buckets.delete(key);
    if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
  }
}
