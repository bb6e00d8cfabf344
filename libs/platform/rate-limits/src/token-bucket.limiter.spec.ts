import { TokenBucketRateLimiter } from './token-bucket.limiter';

describe('token bucket rate limiter', () => {
  it('allows a burst up to capacity, then one attempt per refill, and says exactly when', () => {
    let now = 0;
    const limiter = new TokenBucketRateLimiter({ capacity: 3, refillPerSecond: 0.5, now: () => now });
    expect(limiter.take('ip')).toEqual({ allowed: true, retryAfterSeconds: 2, remaining: 2, limit: 3 });
    limiter.take('ip');
    expect(limiter.take('ip')).toEqual({ allowed: true, retryAfterSeconds: 6, remaining: 0, limit: 3 });
    expect(limiter.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 2, remaining: 0, limit: 3 });
    now = 1_000;
    // A refused attempt took nothing: half a token has come back, half is missing.
    expect(limiter.take('ip')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    now = 2_000;
    expect(limiter.take('ip')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('other').allowed).toBe(true);
  });

  it('puts a refunded token back, up to capacity', () => {
    const limiter = new TokenBucketRateLimiter({ capacity: 1, refillPerSecond: 1 / 60, now: () => 0 });
    limiter.refund('ip');
    expect(limiter.take('ip').allowed).toBe(true);
    limiter.refund('ip');
    limiter.refund('ip');
    expect(limiter.take('ip').allowed).toBe(true);
    expect(limiter.take('ip').allowed).toBe(false);
  });

  it('finds the token after exactly the wait it was told, at 60 per minute', () => {
    let now = 0;
    const limiter = new TokenBucketRateLimiter({ capacity: 1, refillPerSecond: 1 / 60, now: () => now });
    expect(limiter.take('ip').allowed).toBe(true);
    const refused = limiter.take('ip');
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    now = refused.retryAfterSeconds * 1000;
    expect(limiter.take('ip').allowed).toBe(true);
  });

  it('does not drain when the clock steps back, and never holds more than capacity', () => {
    let now = 10_000;
    const limiter = new TokenBucketRateLimiter({ capacity: 2, refillPerSecond: 1, now: () => now });
    limiter.take('ip');
    now = 5_000;
    expect(limiter.take('ip')).toMatchObject({ allowed: true, remaining: 0 });
    now = 1_000_000;
    expect(limiter.take('ip')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('tracks at most maxKeys keys, dropping full buckets first', () => {
    let now = 0;
    const limiter = new TokenBucketRateLimiter({ capacity: 1, refillPerSecond: 1, maxKeys: 2, now: () => now });
    limiter.take('a');
    now = 5_000;
    limiter.take('b');
    now = 5_500;
    limiter.take('c');
    expect(limiter.trackedKeys).toBe(2);
    // 'a' had refilled and went; 'b' is still empty.
    expect(limiter.take('b').allowed).toBe(false);
  });

  it('refuses a capacity or rate out of range at construction', () => {
    expect(() => new TokenBucketRateLimiter({ capacity: 0, refillPerSecond: 1 })).toThrow(/capacity/);
    expect(() => new TokenBucketRateLimiter({ capacity: 5, refillPerSecond: 0 })).toThrow(/refillPerSecond/);
    expect(() => new TokenBucketRateLimiter({ capacity: 5, refillPerSecond: Number.POSITIVE_INFINITY })).toThrow(/refillPerSecond/);
  });
});
