export {
  CombinedRateLimiter,
  DEFAULT_MAX_TRACKED_KEYS,
  WindowRateLimiter,
  type RateDecision,
  type RateLimiter,
  type WindowRateLimiterOptions,
} from './window-rate.limiter';
export { TokenBucketRateLimiter, type TokenBucketRateLimiterOptions } from './token-bucket.limiter';
export { grpcPeerAddress, sourceAddress, sourceAddressOf, sourceKey, TrustedProxies } from './source-address.resolver';
export { PROBLEM_CONTENT_TYPE, RATE_LIMITED_CODE, rateLimitedHeaders, rateLimitedProblem, type RateLimitedProblem } from './rate-limited.problem';
