/**
 * @trustmesh/cards-fetcher/testing: a test CA, a real HTTPS server on 127.0.0.1 and a map-based `lookup`, so tests of
 * anything that fetches (crawler, ownership files, did:web) run through SafeFetcher over real TLS.
 *
 * The server listens on loopback, which SafeFetcher refuses; tests must pass `admitAddressForTests` explicitly
 * (`admitLoopbackForTests` below) and should also show the refusal without it.
 */
import type { AddressClass } from '../address.classifier';

export { createTestCa, type TestCa, type TestCertificate } from './test-ca';
export { startHttpsServer, type StartHttpsServerOptions, type TestHttpsServer, type TestRoute, type TestRouteHandler } from './https-test-server';
export { lookupFromMap } from './lookup-from-map';

/** For `SafeFetcherOptions.admitAddressForTests`: admits 127.0.0.1 only, nothing else that is refused. */
export function admitLoopbackForTests(address: string, addressClass: AddressClass): boolean {
  return addressClass === 'loopback' && address === '127.0.0.1';
}
