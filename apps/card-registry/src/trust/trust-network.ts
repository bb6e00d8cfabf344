/**
 * Every outbound call the trust features make, built once from the configuration: the SafeFetcher (CARDS.md
 * §3.3 "Safe fetching": HTTPS only, private and loopback addresses refused, bounded size and time), the TXT
 * lookup of DNS proofs, and key documents (DID documents) fetched as strict JSON with the SHA-256 of their
 * exact bytes (`jsonDocumentFetch` of @trustmesh/cards-fetcher), which re-verification compares to notice a
 * changed document.
 *
 * The test-only overrides (trust.config.ts) swap the CA store, the host lookup, the DNS servers and the
 * HTTPS port, and admit 127.0.0.1; production wiring never sets them.
 */
import { jsonDocumentFetch, SafeFetcher, type JsonDocumentOutcome, type LookupAll } from '@trustmesh/cards-fetcher';
import { createTxtLookup, type TxtLookup } from '@trustmesh/cards-ownership';
import type { KeyDocumentResolver } from '@trustmesh/cards-signatures';

import type { TrustConfig } from './trust.config';

/** A DID document is a few KiB; this bounds what a hostile signer can make us hold. */
const KEY_DOCUMENT_MAX_BYTES = 128 * 1024;
const KEY_DOCUMENT_TIMEOUT_MS = 10_000;
const KEY_DOCUMENT_MAX_DEPTH = 32;

export type KeyDocumentFetch = JsonDocumentOutcome;

export interface TrustNetwork {
  readonly fetcher: SafeFetcher;
  readonly txtLookup: TxtLookup;
  /** TEST ONLY: the port HTTPS proofs and key documents are fetched on; undefined in production (443). */
  readonly httpsPortForTests: number | undefined;
  fetchKeyDocument(url: string): Promise<KeyDocumentFetch>;
  /**
   * A resolver for one verification that fetches through `fetchKeyDocument` and records what it fetched
   * (url -> digest), so the outcome can name the key document it was checked against.
   */
  recordingResolver(preloaded?: ReadonlyMap<string, KeyDocumentFetch>): { resolver: KeyDocumentResolver; fetched: Map<string, KeyDocumentFetch> };
}

function lookupFromHosts(hosts: Readonly<Record<string, string>>): LookupAll {
  return async (hostname) => {
    const address = hosts[hostname.toLowerCase()];
    if (address === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: 4 }];
  };
}

/** `https://host/path` -> `https://host:port/path` (tests only: their servers cannot listen on 443). */
function onPort(url: string, port: number | undefined): string {
  if (port === undefined || !url.startsWith('https://')) return url;
  const rest = url.slice('https://'.length);
  const slash = rest.search(/[/?#]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  if (authority.includes(':')) return url;
  return `https://${authority}:${port}${slash < 0 ? '' : rest.slice(slash)}`;
}

export function createTrustNetwork(config: TrustConfig): TrustNetwork {
  const overrides = config.testOnly;
  const fetcher = new SafeFetcher({
    ...(overrides?.caPem !== undefined ? { ca: overrides.caPem } : {}),
    ...(overrides?.hosts !== undefined ? { lookup: lookupFromHosts(overrides.hosts) } : {}),
    ...(overrides?.admitLoopback ? { admitAddressForTests: (address: string, addressClass: string) => addressClass === 'loopback' && address === '127.0.0.1' } : {}),
  });
  const txtLookup = createTxtLookup(overrides?.dnsServers ? { servers: overrides.dnsServers } : {});
  const httpsPortForTests = overrides?.httpsPort;

  // No cache: a proof or a re-check must see the document as it is now.
  const fetchDocument = jsonDocumentFetch(fetcher, { maxBytes: KEY_DOCUMENT_MAX_BYTES, timeoutMs: KEY_DOCUMENT_TIMEOUT_MS, maxDepth: KEY_DOCUMENT_MAX_DEPTH, accept: 'application/did+json, application/json' });
  const fetchKeyDocument = (url: string): Promise<KeyDocumentFetch> => fetchDocument(onPort(url, httpsPortForTests));

  return {
    fetcher,
    txtLookup,
    httpsPortForTests,
    fetchKeyDocument,
    recordingResolver(preloaded) {
      const fetched = new Map<string, KeyDocumentFetch>();
      const resolver: KeyDocumentResolver = async (url) => {
        const result = preloaded?.get(url) ?? fetched.get(url) ?? (await fetchKeyDocument(url));
        fetched.set(url, result);
        return result.ok ? result.document : undefined;
      };
      return { resolver, fetched };
    },
  };
}
