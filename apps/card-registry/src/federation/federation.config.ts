/**
 * The federation part of the registry's configuration (README.md "Federation"), read with the rest of it so one
 * `ConfigError` names every bad variable. The three `REGISTRY_FEDERATION_TEST_ONLY_*` variables exist for the
 * registry's own end-to-end tests, which crawl real HTTPS servers on 127.0.0.1: a CA file replacing the trust roots,
 * a fixed host table replacing DNS, and the admission of 127.0.0.1 (which the SafeFetcher otherwise refuses). Their
 * names say what they are; the bootstrap logs a warning whenever one is set. Nothing else can weaken safe fetching.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

import type { envReader } from '@trustmesh/platform-config';

export interface FederationTestOnly {
  /** PEM trust anchors replacing Node's roots. */
  ca?: string;
  /** Host name (lower case) → address, replacing DNS; names not listed do not resolve. */
  hosts?: Record<string, string>;
  admitLoopback: boolean;
}

export interface FederationConfig {
  /** Whether this replica crawls due sources by itself (crawl-now works either way). */
  scheduler: boolean;
  /** How often the scheduler looks for due sources. */
  tickMs: number;
  /** One crawl's deadline; a claim lasts this plus a grace to store what was found. */
  crawlDeadlineMs: number;
  testOnly: FederationTestOnly;
}

export const FEDERATION_TEST_ONLY_VARIABLES = ['REGISTRY_FEDERATION_TEST_ONLY_CA_FILE', 'REGISTRY_FEDERATION_TEST_ONLY_HOSTS', 'REGISTRY_FEDERATION_TEST_ONLY_ADMIT_LOOPBACK'] as const;

const HOST_NAME = /^[a-z0-9.-]{1,253}$/;

export function readFederationConfig(reader: ReturnType<typeof envReader>): FederationConfig {
  const { fail, value, integer, boolean } = reader;
  const testOnly: FederationTestOnly = { admitLoopback: boolean('REGISTRY_FEDERATION_TEST_ONLY_ADMIT_LOOPBACK', false) };
  const caFile = value('REGISTRY_FEDERATION_TEST_ONLY_CA_FILE');
  if (caFile !== undefined) {
    try {
      const pem = readFileSync(caFile, 'utf8');
      if (!pem.includes('-----BEGIN CERTIFICATE-----')) fail('REGISTRY_FEDERATION_TEST_ONLY_CA_FILE', 'must name a PEM file holding at least one certificate');
      else testOnly.ca = pem;
    } catch {
      fail('REGISTRY_FEDERATION_TEST_ONLY_CA_FILE', 'names a file that cannot be read');
    }
  }
  const hostsRaw = value('REGISTRY_FEDERATION_TEST_ONLY_HOSTS');
  if (hostsRaw !== undefined) {
    const hosts: Record<string, string> = {};
    let bad = 0;
    for (const entry of hostsRaw.split(/[\s,]+/).filter(Boolean)) {
      const [name, address, ...rest] = entry.split('=');
      if (name === undefined || address === undefined || rest.length > 0 || !HOST_NAME.test(name.toLowerCase()) || isIP(address) === 0) bad += 1;
      else hosts[name.toLowerCase()] = address;
    }
    if (bad > 0 || Object.keys(hosts).length === 0) fail('REGISTRY_FEDERATION_TEST_ONLY_HOSTS', 'must hold name=address pairs separated by commas');
    else testOnly.hosts = hosts;
  }
  return {
    scheduler: boolean('REGISTRY_FEDERATION_SCHEDULER', true),
    tickMs: integer('REGISTRY_FEDERATION_TICK_MS', 10_000, 100, 600_000),
    crawlDeadlineMs: integer('REGISTRY_FEDERATION_CRAWL_DEADLINE_MS', 60_000, 1_000, 600_000),
    testOnly,
  };
}
