/**
 * @trustmesh/cards-federation: the registry's crawler core (CARDS.md §2.3 Discovery and Nesting, §5 Federation).
 *
 *   const { report, nextState } = await crawlSource({ url: 'https://acme.com' }, previousState, {
 *     fetcher: safeFetcherPort(new SafeFetcher()),
 *     limits: { deadlineMs: 30_000 },
 *   });
 *
 * - `report.records`: new or changed documents with exact bytes, sha-256 digest, provenance and status, ids as the
 *   source states them; `report.unchanged`: identifiers whose documents did not change; `report.gone`: identifiers
 *   listed last time and not now (tombstone them); `report.problems`: every failure, `{url, code, pointer, message}`.
 * - `nextState` is plain JSON: persist it and pass it to the next crawl of the same source (conditional GETs, `gone`).
 * - The fetch is a port (`CrawlFetcher`); `safeFetcherPort` adapts SafeFetcher to it. Node-only through that adapter.
 */
export { crawlSource } from './source.crawler';
export { safeFetcherPort } from './safe-fetcher.adapter';
export { parseLinkHeader, linkTargets, type LinkValue } from './link-header.parser';
export { htmlLinkTargets } from './html-link.scanner';
export { WELL_KNOWN_ARD_PATH, WELL_KNOWN_CATALOG_PATH } from './source.discovery';
export {
  CRAWL_PROBLEM_CODES,
  DEFAULT_CRAWL_LIMITS,
  EMPTY_CRAWL_STATE,
  type CatalogMemory,
  type CrawlDeps,
  type CrawlFetcher,
  type CrawlFetchFailure,
  type CrawlFetchRequest,
  type CrawlFetchResponse,
  type CrawlLimits,
  type CrawlOutcome,
  type CrawlProblem,
  type CrawlProblemCode,
  type CrawlProvenance,
  type CrawlRecord,
  type CrawlRecordKind,
  type CrawlRecordStatus,
  type CrawlReport,
  type CrawlSource,
  type CrawlState,
  type DocumentState,
  type EntryReference,
} from './crawl.types';
