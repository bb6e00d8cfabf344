/**
 * Proof by DNS TXT record (CARDS.md §5). The publisher publishes
 *   _trustmesh-challenge.<domain>.  TXT  "trustmesh-verification=<token>"
 * A dedicated `_trustmesh-challenge` name keeps the record off the apex, where SPF and other TXT records live, and lets
 * a DNS operator delegate just this name. A record may arrive split into several character-strings (each at most 255
 * bytes); they are joined before comparing. A proof on a domain grants its subdomains (as DNS proofs do in the MCP
 * Registry), because only the zone's operator can publish under it.
 */
import { Resolver } from 'node:dns/promises';

import { challengeText } from './challenge-token';
import type { ProofOutcome } from './ownership.types';

export const DNS_CHALLENGE_LABEL = '_trustmesh-challenge';
const RECORD_PREFIX = 'trustmesh-verification=';

/** Returns TXT records of a name, each as its list of character-strings (like `resolveTxt`). Rejects with `code`. */
export type TxtLookup = (name: string) => Promise<string[][]>;

export interface TxtLookupOptions {
  /** DNS servers (`ip` or `ip:port`); default the system's. Tests point this at the test DNS server. */
  readonly servers?: readonly string[];
  /** Overall time for one lookup. Default 5 s. */
  readonly timeoutMs?: number;
}

/** The production TXT lookup: node:dns `Resolver.resolveTxt`, one try per server, bounded by `timeoutMs`. */
export function createTxtLookup(options: TxtLookupOptions = {}): TxtLookup {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return (name) => {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (options.servers) resolver.setServers([...options.servers]);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        resolver.cancel();
        reject(Object.assign(new Error('DNS lookup timed out'), { code: 'ETIMEOUT' }));
      }, timeoutMs);
    });
    return Promise.race([resolver.resolveTxt(name), deadline]).finally(() => clearTimeout(timer));
  };
}

export function dnsChallengeName(domain: string): string {
  return `${DNS_CHALLENGE_LABEL}.${domain}`;
}

export async function checkDnsTxtProof(domain: string, token: string, lookup: TxtLookup, now: () => Date): Promise<ProofOutcome> {
  const name = dnsChallengeName(domain);
  const fail = (code: Extract<ProofOutcome, { ok: false }>['code'], message: string): ProofOutcome => ({ ok: false, method: 'dns-txt', code, message });
  let records: string[][];
  try {
    records = await lookup(name);
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
    if (code === 'ENOTFOUND' || code === 'ENODATA') return fail('OWNERSHIP_DNS_RECORD_MISSING', `no TXT record at ${name}; publish "${challengeText(token)}" there`);
    if (code === 'ETIMEOUT' || code === 'ECANCELLED') return fail('OWNERSHIP_DNS_TIMEOUT', `the DNS servers for ${name} did not answer in time; try again later`);
    return fail('OWNERSHIP_DNS_FAILED', `the TXT lookup of ${name} failed (${code || 'unknown error'}); check the zone's name servers`);
  }
  const values = records.map((chunks) => chunks.join('').trim());
  if (values.includes(challengeText(token))) return { ok: true, method: 'dns-txt', checkedAt: now().toISOString(), grantsSubdomains: true };
  if (values.some((value) => value.startsWith(RECORD_PREFIX))) {
    return fail('OWNERSHIP_DNS_TOKEN_MISMATCH', `the TXT record at ${name} holds another token; replace it with "${challengeText(token)}"`);
  }
  return fail('OWNERSHIP_DNS_RECORD_MISSING', `no "${RECORD_PREFIX}" TXT record at ${name}; publish "${challengeText(token)}" there`);
}
