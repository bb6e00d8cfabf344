import { rateLimitedHeaders, rateLimitedProblem } from './rate-limited.problem';
import { WindowRateLimiter } from './window-rate.limiter';

describe('rate-limited problem', () => {
  it('answers a refused attempt with an RFC 7807 body and a Retry-After that agree', () => {
    let now = 0;
    const limiter = new WindowRateLimiter({ limit: 1, windowSeconds: 60, now: () => now });
    limiter.take('203.0.113.9');
    now = 20_500;
    const refused = limiter.take('203.0.113.9');
    const body = rateLimitedProblem(refused, 'Too many publishes from this address. Retry after 40 seconds.');
    expect(JSON.parse(JSON.stringify(body))).toEqual({
      type: 'about:blank',
      title: 'Too Many Requests',
      status: 429,
      code: 'RATE_LIMITED',
      detail: 'Too many publishes from this address. Retry after 40 seconds.',
      retryAfterSeconds: 40,
    });
    expect(rateLimitedHeaders(refused)).toEqual({ 'Content-Type': 'application/problem+json; charset=utf-8', 'Retry-After': '40' });
  });
});
