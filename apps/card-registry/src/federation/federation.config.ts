/**
 * The federation part of the registry's configuration (README.md "Federation"), read with the rest of it so one
 * `ConfigError` names every bad variable. Crawls fetch through the registry's one SafeFetcher (trust/trust-network.ts),
 * so the only way to weaken safe fetching, for the registry's own end-to-end tests, is the shared
 * `REGISTRY_TEST_ONLY_*` fetch overrides (trust/trust.config.ts): nothing here can.
 */
import type { envReader } from '@trustmesh/platform-config';

export interface FederationConfig {
  /** Whether this replica crawls due sources by itself (crawl-now works either way). */
  scheduler: boolean;
  /** How often the scheduler looks for due sources. */
  tickMs: number;
  /** One crawl's deadline; a claim lasts this plus a grace to store what was found. */
  crawlDeadlineMs: number;
}

export function readFederationConfig(reader: ReturnType<typeof envReader>): FederationConfig {
  const { integer, boolean } = reader;
  return {
    scheduler: boolean('REGISTRY_FEDERATION_SCHEDULER', true),
    tickMs: integer('REGISTRY_FEDERATION_TICK_MS', 10_000, 100, 600_000),
    crawlDeadlineMs: integer('REGISTRY_FEDERATION_CRAWL_DEADLINE_MS', 60_000, 1_000, 600_000),
  };
}
