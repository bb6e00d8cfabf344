/**
 * @trustmesh/cards-fetcher: SSRF-safe HTTPS fetching for the card registry (CARDS.md §3.3 "Safe fetching", §5).
 * Node-only. Test helpers (test CA, HTTPS server, map lookup) live in @trustmesh/cards-fetcher/testing.
 */
export { SafeFetcher, SAFE_FETCH_DEFAULTS } from './safe-fetcher';
export {
  SAFE_FETCH_ERROR_CODES,
  type LookupAddress,
  type LookupAll,
  type SafeFetchError,
  type SafeFetchErrorCode,
  type SafeFetcherOptions,
  type SafeFetchOutcome,
  type SafeFetchRequest,
  type SafeFetchResponse,
} from './safe-fetch.types';
export { classifyAddress, isIpLiteral, parseIpv4Literal, parseIpv6Literal, type AddressClass, type AddressVerdict } from './address.classifier';
export {
  jsonDocumentFetch,
  jsonDocumentResolver,
  JSON_DOCUMENT_DEFAULTS,
  type JsonDocumentCacheOptions,
  type JsonDocumentFailureCode,
  type JsonDocumentFetch,
  type JsonDocumentOutcome,
  type JsonDocumentResolver,
  type JsonDocumentResolverOptions,
} from './json-document.resolver';
