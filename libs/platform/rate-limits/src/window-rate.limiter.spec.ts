import { RedeemRateLimiter } from './window-rate.limiter';

describe('redeem rate limiter', () => {
  it('allows the limit per window per source, tells when to retry, and starts afresh after the window', () => {
    let now = 0;
    const limiter = new RedeemRateLimiter(2, 60, () => now);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(true);
    now = 15_000;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 45 });
    expect(limiter.take('b').allowed).toBe(true);
    now = 60_000;
    expect(limiter.take('a').allowed).toBe(true);
  });
});
