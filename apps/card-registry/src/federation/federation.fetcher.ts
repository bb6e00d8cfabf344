/**
 * The crawler's fetch port (CARDS.md §3.3 "Safe fetching"): `@trustmesh/cards-fetcher`'s SafeFetcher (https only,
 * every DNS answer and redirect hop checked, bytes and time capped) behind `safeFetcherPort`. Production uses the
 * system resolver and Node's roots; only the `REGISTRY_FEDERATION_TEST_ONLY_*` settings (federation.config.ts) change
 * the trust roots, the resolver, or admit 127.0.0.1, the one address a test server listens on.
 */
import { isIP } from 'node:net';

import { SafeFetcher, type LookupAll } from '@trustmesh/cards-fetcher';
import { safeFetcherPort, type CrawlFetcher } from '@trustmesh/cards-federation';

import type { FederationTestOnly } from './federation.config';

export function federationFetcher(testOnly: FederationTestOnly, maxBytes: number): CrawlFetcher {
  const hosts = testOnly.hosts;
  const lookup: LookupAll | undefined = hosts
    ? async (hostname) => {
        const address = hosts[hostname.toLowerCase()];
        if (address === undefined) throw Object.assign(new Error('not in the test host table'), { code: 'ENOTFOUND' });
        return [{ address, family: isIP(address) === 6 ? 6 : 4 }];
      }
    : undefined;
  const fetcher = new SafeFetcher({
    maxBytes,
    ...(lookup ? { lookup } : {}),
    ...(testOnly.ca !== undefined ? { ca: testOnly.ca } : {}),
    ...(testOnly.admitLoopback ? { admitAddressForTests: (address: string, addressClass: string) => addressClass === 'loopback' && address === '127.0.0.1' } : {}),
  });
  return safeFetcherPort(fetcher);
}
