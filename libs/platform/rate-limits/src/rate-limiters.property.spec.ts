// Properties every limiter keeps over arbitrary traffic, whatever the keys and timing: waiting the time a
// refusal names is enough, and no key ever gets more than its limit allows over time.
import fc from 'fast-check';

import { TokenBucketRateLimiter } from './token-bucket.limiter';
import { CombinedRateLimiter, WindowRateLimiter, type RateLimiter } from './window-rate.limiter';

// Bursts (short gaps) as well as slow traffic, so short and long windows both fill up.
const gap = fc.oneof(fc.integer({ min: 0, max: 1_500 }), fc.integer({ min: 0, max: 20_000 }));
const traffic = fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'c'), advanceMs: gap }), { maxLength: 300 });

type Build = (now: () => number) => RateLimiter;

const LIMITERS: Array<[string, Build]> = [
  ['fixed window', (now) => new WindowRateLimiter({ limit: 3, windowSeconds: 30, now })],
  ['token bucket', (now) => new TokenBucketRateLimiter({ capacity: 3, refillPerSecond: 1 / 7, now })],
  [
    'combined windows',
    (now) => new CombinedRateLimiter([new WindowRateLimiter({ limit: 2, windowSeconds: 10, now }), new WindowRateLimiter({ limit: 5, windowSeconds: 60, now })]),
  ],
  [
    'combined window and bucket',
    (now) => new CombinedRateLimiter([new WindowRateLimiter({ limit: 2, windowSeconds: 10, now }), new TokenBucketRateLimiter({ capacity: 4, refillPerSecond: 0.1, now })]),
  ],
];

describe.each(LIMITERS)('%s limiter', (_name, build) => {
  it('allows a key its next attempt once the wait a refusal named has passed', () => {
    fc.assert(
      fc.property(traffic, (attempts) => {
        let now = 0;
        const limiter = build(() => now);
        const retryAt = new Map<string, number>();
        for (const { key, advanceMs } of attempts) {
          now += advanceMs;
          const decision = limiter.take(key);
          const due = retryAt.get(key);
          if (due !== undefined && now >= due && !decision.allowed) return false;
          if (decision.allowed) retryAt.delete(key);
          else retryAt.set(key, now + decision.retryAfterSeconds * 1000);
          if (decision.retryAfterSeconds < 1 || !Number.isInteger(decision.retryAfterSeconds) || decision.remaining < 0) return false;
        }
        return true;
      }),
    );
  });
});

describe('limits over time', () => {
  it('a fixed window allows a key at most limit × (windows begun) attempts', () => {
    fc.assert(
      fc.property(traffic, (attempts) => {
        let now = 0;
        const limiter = new WindowRateLimiter({ limit: 3, windowSeconds: 30, now: () => now });
        const allowed = new Map<string, number>();
        for (const { key, advanceMs } of attempts) {
          now += advanceMs;
          if (limiter.take(key).allowed) allowed.set(key, (allowed.get(key) ?? 0) + 1);
          if ((allowed.get(key) ?? 0) > 3 * (Math.floor(now / 30_000) + 1)) return false;
        }
        return true;
      }),
    );
  });

  it('a token bucket allows a key at most capacity + refill × elapsed attempts', () => {
    fc.assert(
      fc.property(traffic, (attempts) => {
        let now = 0;
        const limiter = new TokenBucketRateLimiter({ capacity: 3, refillPerSecond: 1 / 7, now: () => now });
        const allowed = new Map<string, number>();
        for (const { key, advanceMs } of attempts) {
          now += advanceMs;
          if (limiter.take(key).allowed) allowed.set(key, (allowed.get(key) ?? 0) + 1);
          if ((allowed.get(key) ?? 0) > 3 + Math.floor(now / 7_000)) return false;
        }
        return true;
      }),
    );
  });
});
