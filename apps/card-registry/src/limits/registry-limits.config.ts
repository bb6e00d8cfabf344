/**
 * The registry's limits, read from the environment with the rest of its configuration (CARDS.md §5 "Rate
 * limits": per-IP and per-credential buckets, publish quotas): a per-source limit on every route (reads
 * far more generous than writes), a per-credential limit on the publisher's writes, a daily publish quota
 * per publisher, and the proxies whose `X-Forwarded-For` is believed. The rate limits count per replica; the
 * publish quota counts in the database, once for all replicas (publish-quota.ts).
 */
import type { ConfigProblem, Env } from '@trustmesh/platform-config';
import { envReader } from '@trustmesh/platform-config';
import { TrustedProxies } from '@trustmesh/platform-rate-limits';

export interface PerMinuteAndHour {
  perMinute: number;
  perHour: number;
}

export interface RegistryLimitsConfig {
  /** Per source address (IPv6 by /64) on the routes that change something, and on every operator route. */
  sourceWrites: PerMinuteAndHour;
  /** Per source address on the public reads (GET). */
  sourceReads: PerMinuteAndHour;
  /** Per publisher credential on publish, status and rename. */
  credential: PerMinuteAndHour;
  /** Revisions a publisher may newly store per UTC day, across every replica. */
  publishQuotaPerDay: number;
  trustedProxies: TrustedProxies;
}

const MAX = 1_000_000_000;

/** Reads the limits, adding a problem per bad variable to `problems` (the caller throws one ConfigError). */
export function collectRegistryLimitsConfig(env: Env, problems: ConfigProblem[]): RegistryLimitsConfig {
  const { fail, value, integer } = envReader(env, problems);
  const pair = (prefix: string, perMinute: number, perHour: number): PerMinuteAndHour => ({
    perMinute: integer(`${prefix}_PER_MINUTE`, perMinute, 1, MAX),
    perHour: integer(`${prefix}_PER_HOUR`, perHour, 1, MAX),
  });
  let trustedProxies = TrustedProxies.none;
  const proxiesRaw = value('REGISTRY_TRUSTED_PROXIES');
  if (proxiesRaw !== undefined) {
    const parsed = TrustedProxies.parse(proxiesRaw);
    if (parsed.invalid.length > 0) fail('REGISTRY_TRUSTED_PROXIES', `must be a comma-separated list of IP addresses or CIDR blocks (${parsed.invalid.length} entr${parsed.invalid.length === 1 ? 'y is' : 'ies are'} not)`);
    else trustedProxies = parsed.proxies;
  }
  return {
    // CARDS.md's baseline for the MCP registry: 60 per minute and 1000 per hour per IP.
    sourceWrites: pair('REGISTRY_RATE_WRITES', 60, 1000),
    sourceReads: pair('REGISTRY_RATE_READS', 600, 20_000),
    credential: pair('REGISTRY_RATE_CREDENTIAL', 60, 1000),
    publishQuotaPerDay: integer('REGISTRY_PUBLISH_QUOTA_PER_DAY', 1000, 1, MAX),
    trustedProxies,
  };
}
