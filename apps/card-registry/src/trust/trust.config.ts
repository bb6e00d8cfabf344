/**
 * The trust part of the registry's configuration (README.md, "Ownership, look-alikes and signatures"):
 * how long an ownership proof stands and when it is re-checked, how often the background task runs,
 * how long a claim's challenge is valid, how often signers' key documents are re-fetched.
 *
 * The `REGISTRY_TEST_ONLY_*` variables let the end-to-end suites point the registry's outbound fetching at
 * their own DNS server, HTTPS servers and test CA on 127.0.0.1. They reopen what safe fetching closes
 * (loopback, the CA store, DNS), so none is ever on by default, each name says it is for tests, and the
 * registry logs a warning at start whenever one is set.
 */
import type { EnvReader } from '@trustmesh/platform-config';

export interface TrustTestOverrides {
  /** PEM trust anchors replacing Node's roots for every outbound HTTPS fetch. */
  caPem?: string;
  /** host -> IP address answers for outbound HTTPS fetches. */
  hosts?: Readonly<Record<string, string>>;
  /** Admit 127.0.0.1 (refused otherwise). */
  admitLoopback: boolean;
  /** The port every outbound `https://host/…` fetch goes to instead of 443. */
  httpsPort?: number;
  /** DNS servers (`ip:port`) for TXT proofs. */
  dnsServers?: string[];
}

export interface TrustConfig {
  /** A proof is re-checked once it is this old. */
  proofRecheckMs: number;
  /** A proof not renewed for this long lapses (its cards lose `verified`). */
  proofValidityMs: number;
  /** How long a claim's challenge token may be proved. */
  claimTtlMs: number;
  /** The background task's period (proof re-checks, key-document re-fetches); 0 turns it off. */
  taskIntervalMs: number;
  /** A signer's key document is re-fetched when its last check is this old. */
  keyRecheckMs: number;
  /** Set only by tests; null in any real deployment. */
  testOnly: TrustTestOverrides | null;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HOST_ENTRY = /^([a-z0-9.-]{1,253})=(\d{1,3}(?:\.\d{1,3}){3})$/;
const DNS_SERVER = /^\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}$/;

export function readTrustConfig(read: EnvReader): TrustConfig {
  const { integer, value, boolean, fail } = read;
  const proofRecheckMs = integer('REGISTRY_PROOF_RECHECK_MS', DAY, 100, 365 * DAY);
  const proofValidityMs = integer('REGISTRY_PROOF_VALIDITY_MS', 30 * DAY, 100, 3650 * DAY);
  if (proofValidityMs < proofRecheckMs) fail('REGISTRY_PROOF_VALIDITY_MS', 'must be at least REGISTRY_PROOF_RECHECK_MS (a proof must be re-checked before it lapses)');

  const caPem = value('REGISTRY_TEST_ONLY_FETCH_CA_PEM');
  const hostsRaw = value('REGISTRY_TEST_ONLY_FETCH_HOSTS');
  const hosts: Record<string, string> = {};
  for (const entry of hostsRaw?.split(',').map((part) => part.trim()).filter(Boolean) ?? []) {
    const match = HOST_ENTRY.exec(entry);
    if (match?.[1] && match[2]) hosts[match[1]] = match[2];
    else fail('REGISTRY_TEST_ONLY_FETCH_HOSTS', 'must hold host=ipv4 pairs separated by commas');
  }
  const dnsRaw = value('REGISTRY_TEST_ONLY_DNS_SERVERS');
  const dnsServers = dnsRaw?.split(',').map((part) => part.trim()).filter(Boolean);
  if (dnsServers?.some((server) => !DNS_SERVER.test(server))) fail('REGISTRY_TEST_ONLY_DNS_SERVERS', 'must hold ipv4:port entries separated by commas');
  const admitLoopback = boolean('REGISTRY_TEST_ONLY_ADMIT_LOOPBACK', false);
  const httpsPortRaw = value('REGISTRY_TEST_ONLY_HTTPS_PORT');
  const httpsPort = httpsPortRaw === undefined ? undefined : integer('REGISTRY_TEST_ONLY_HTTPS_PORT', 443, 1, 65535);
  const anyTestOnly = caPem !== undefined || hostsRaw !== undefined || dnsServers !== undefined || admitLoopback || httpsPort !== undefined;

  return {
    proofRecheckMs,
    proofValidityMs,
    claimTtlMs: integer('REGISTRY_CLAIM_TTL_MS', 7 * DAY, 1000, 90 * DAY),
    taskIntervalMs: integer('REGISTRY_TRUST_TASK_INTERVAL_MS', 10 * 60_000, 0, DAY),
    keyRecheckMs: integer('REGISTRY_KEY_RECHECK_MS', 6 * HOUR, 0, 30 * DAY),
    testOnly: anyTestOnly
      ? {
          admitLoopback,
          ...(caPem !== undefined ? { caPem: caPem.replace(/\\n/g, '\n') } : {}),
          ...(hostsRaw !== undefined ? { hosts } : {}),
          ...(httpsPort !== undefined ? { httpsPort } : {}),
          ...(dnsServers !== undefined ? { dnsServers } : {}),
        }
      : null,
  };
}
