import { CombinedRateLimiter, WindowRateLimiter } from './window-rate.limiter';

describe('window rate limiter', () => {
  it('allows the limit per window per key, tells when to retry, and starts afresh after the window', () => {
    let now = 0;
    const limiter = new WindowRateLimiter({ limit: 2, windowSeconds: 60, now: () => now });
    expect(limiter.take('a')).toEqual({ allowed: true, retryAfterSeconds: 60, remaining: 1, limit: 2 });
    expect(limiter.take('a')).toEqual({ allowed: true, retryAfterSeconds: 60, remaining: 0, limit: 2 });
    now = 15_000;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 45, remaining: 0, limit: 2 });
    expect(limiter.take('b').allowed).toBe(true);
    now = 60_000;
    expect(limiter.take('a')).toEqual({ allowed: true, retryAfterSeconds: 60, remaining: 1, limit: 2 });
  });

  it('keeps refusing a key that keeps trying, and never asks to wait less than a second', () => {
    let now = 0;
    const limiter = new WindowRateLimiter({ limit: 1, windowSeconds: 10, now: () => now });
    limiter.take('a');
    for (let attempt = 0; attempt < 1000; attempt += 1) expect(limiter.take('a').allowed).toBe(false);
    now = 9_999;
    expect(limiter.take('a')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    now = 10_000;
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('gives back a refunded attempt within its window, never more than was taken, and nothing once the window passed', () => {
    let now = 0;
    const limiter = new WindowRateLimiter({ limit: 2, windowSeconds: 60, now: () => now });
    limiter.refund('a');
    limiter.take('a');
    limiter.take('a');
    limiter.refund('a');
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('a').allowed).toBe(false);
    // Saturated by refused attempts: a refund gives back one allowed attempt, not the refused ones.
    limiter.take('a');
    limiter.refund('a');
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    now = 60_000;
    limiter.refund('a');
    limiter.take('a');
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('tracks at most maxKeys keys: expired windows go first, else the oldest key', () => {
    let now = 0;
    const limiter = new WindowRateLimiter({ limit: 1, windowSeconds: 10, maxKeys: 2, now: () => now });
    limiter.take('old');
    now = 5_000;
    limiter.take('recent');
    now = 11_000;
    limiter.take('fresh');
    expect(limiter.trackedKeys).toBe(2);
    // 'recent' survived the sweep: it is still refused within its window.
    expect(limiter.take('recent').allowed).toBe(false);

    limiter.take('another');
    expect(limiter.trackedKeys).toBe(2);
    // 'recent' was the oldest live key and made room: it starts a new window.
    expect(limiter.take('recent').allowed).toBe(true);
  });

  it('refuses a limit, window or bound that is not a positive integer at construction', () => {
    expect(() => new WindowRateLimiter({ limit: 0, windowSeconds: 60 })).toThrow(/limit must be a positive integer/);
    expect(() => new WindowRateLimiter({ limit: 5, windowSeconds: 1.5 })).toThrow(/windowSeconds/);
    expect(() => new WindowRateLimiter({ limit: 5, windowSeconds: 60, maxKeys: Number.NaN })).toThrow(/maxKeys/);
  });
});

describe('combined rate limiter', () => {
  it('allows only what every limit allows and reports the tightest one', () => {
    let now = 0;
    const perMinute = new WindowRateLimiter({ limit: 2, windowSeconds: 60, now: () => now });
    const perHour = new WindowRateLimiter({ limit: 5, windowSeconds: 3600, now: () => now });
    const limiter = new CombinedRateLimiter([perMinute, perHour]);
    expect(limiter.take('ip')).toEqual({ allowed: true, retryAfterSeconds: 60, remaining: 1, limit: 2 });
    limiter.take('ip');
    expect(limiter.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 60, remaining: 0, limit: 2 });
    now = 60_000;
    limiter.take('ip');
    limiter.take('ip');
    // The minute is over again but the hour's five attempts are spent: wait for the hour.
    expect(limiter.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 3540, remaining: 0, limit: 5 });
  });

  it('refunds an attempt to every limit it counted in', () => {
    const perMinute = new WindowRateLimiter({ limit: 1, windowSeconds: 60, now: () => 0 });
    const perHour = new WindowRateLimiter({ limit: 1, windowSeconds: 3600, now: () => 0 });
    const limiter = new CombinedRateLimiter([perMinute, perHour]);
    expect(limiter.take('ip').allowed).toBe(true);
    limiter.refund('ip');
    expect(limiter.take('ip').allowed).toBe(true);
    expect(limiter.take('ip').allowed).toBe(false);
  });

  it('names a wait long enough when one limit refuses an attempt that spent another', () => {
    let now = 0;
    const limiter = new CombinedRateLimiter([
      new WindowRateLimiter({ limit: 1, windowSeconds: 60, now: () => now }),
      new WindowRateLimiter({ limit: 2, windowSeconds: 3600, now: () => now }),
    ]);
    limiter.take('ip');
    const refused = limiter.take('ip');
    // The minute refused it, but it was the hour's second attempt: waiting a minute would not do.
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 3600, remaining: 0, limit: 2 });
    now = refused.retryAfterSeconds * 1000;
    expect(limiter.take('ip').allowed).toBe(true);
  });
});
