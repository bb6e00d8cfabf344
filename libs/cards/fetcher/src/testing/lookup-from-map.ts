/**
 * A `lookup` for SafeFetcher answering from a fixed map, so tests can name `acme.test` and decide which address it
 * resolves to (including hostile answers such as a private address). Unknown names fail like NXDOMAIN.
 */
import { isIP } from 'node:net';

import type { LookupAddress, LookupAll } from '../safe-fetch.types';

export function lookupFromMap(map: Readonly<Record<string, string | readonly string[]>>): LookupAll {
  return async (hostname) => {
    const entry = map[hostname.toLowerCase()];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const addresses = typeof entry === 'string' ? [entry] : entry;
    return addresses.map((address): LookupAddress => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
  };
}
