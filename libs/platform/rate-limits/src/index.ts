export { RedeemRateLimiter, type RateDecision } from './window-rate.limiter';
export { sourceAddress, sourceKey, TrustedProxies } from './source-address.resolver';
