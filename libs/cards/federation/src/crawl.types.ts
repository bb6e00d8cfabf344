/**
 * The public shapes of the federation crawler (CARDS.md §2.3 Discovery and Nesting, §5 "Federation and crawling"):
 * the fetch PORT the crawler reads through, the source and its limits, the state carried from one crawl to the next,
 * and the report a registry stores from. Everything here is plain JSON-compatible data, so a registry can persist
 * `CrawlState` as is and replay a `CrawlReport` from a queue.
 */

/** What one GET returned: the exact bytes, the final URL after redirects, lower-case header names. */
export interface CrawlFetchResponse {
  readonly status: number;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Uint8Array;
  readonly etag?: string;
  readonly lastModified?: string;
  /** A conditional GET answered 304: the document is unchanged since the validators given. */
  readonly notModified: boolean;
}

export interface CrawlFetchFailure {
  /** A stable code (the SafeFetcher adapter passes its FETCH_* codes through). */
  readonly error: string;
  /** A sentence a publisher can act on; never internal error text. */
  readonly message?: string;
  /** The HTTP status, when the failure is one (404, 410, 500...). */
  readonly status?: number;
}

export interface CrawlFetchRequest {
  readonly etag?: string;
  readonly lastModified?: string;
  readonly maxBytes: number;
  readonly accept?: string;
  /** Fires at the crawl's deadline; an adapter should stop reading then. */
  readonly signal?: AbortSignal;
}

/** The PORT: the crawler never opens a socket itself. `safeFetcherPort` adapts SafeFetcher to it. */
export interface CrawlFetcher {
  get(url: string, request: CrawlFetchRequest): Promise<CrawlFetchResponse | CrawlFetchFailure>;
}

export interface CrawlSource {
  /** A host origin (`https://acme.com`) or a page on it; discovery starts here. */
  readonly url: string;
}

export interface CrawlLimits {
  /** Entries read per catalog; the rest are reported (CATALOG_TOO_MANY_ENTRIES), still counted as listed. */
  readonly maxEntriesPerCatalog: number;
  /** Bytes read per document (catalog, card, discovery page). */
  readonly maxBytesPerDocument: number;
  /** Fetches per crawl, discovery included. */
  readonly maxDocumentsPerCrawl: number;
  /** Fetches in flight at once. */
  readonly concurrency: number;
  /** The whole crawl; what finished before it is kept, the rest is reported as CRAWL_DEADLINE. */
  readonly deadlineMs: number;
  /** Catalog levels followed, the root being level 1 (CARDS.md §2.3 Nesting: 4). */
  readonly maxCatalogLevels: number;
}

export const DEFAULT_CRAWL_LIMITS: CrawlLimits = {
  maxEntriesPerCatalog: 1000,
  maxBytesPerDocument: 1024 * 1024,
  maxDocumentsPerCrawl: 500,
  concurrency: 4,
  deadlineMs: 60_000,
  maxCatalogLevels: 4,
};

export interface CrawlDeps {
  readonly fetcher: CrawlFetcher;
  readonly limits?: Partial<CrawlLimits>;
  /** Clock for `fetchedAt`; default `new Date()`. */
  readonly now?: () => Date;
  /** Accept the draft seed-catalog forms (`agents`/`services`/`records`), as @trustmesh/cards-documents allows. */
  readonly compatibility?: boolean;
}

/** Per-URL memory for conditional GETs; kept only for documents that were accepted. */
export interface DocumentState {
  readonly etag?: string;
  readonly lastModified?: string;
  /** `sha-256:lowerhex` of the exact bytes accepted. */
  readonly digest: string;
  readonly fetchedAt: string;
  /** The identifier the document was accepted under, so an entry renamed in its catalog forces a re-fetch. */
  readonly identifier?: string;
}

/** What an entry of a catalog points at, remembered so an unchanged catalog (304) is followed without re-parsing. */
export interface EntryReference {
  readonly identifier: string;
  /** JSON pointer of the entry in its catalog. */
  readonly pointer: string;
  readonly url: string;
  /** The entry's media type (final form); absent for seed `aiCards` entries, which are AI Cards. */
  readonly type?: string;
  readonly version?: string;
  readonly digest?: string;
  /** The identifier member's name in the entry: `id` (seed) or `identifier` (final), for pointers in problems. */
  readonly identifierMember: 'id' | 'identifier';
  /** Levels of inline nested catalogs between the fetched catalog and this entry (0: the entry is in it). */
  readonly inlineDepth: number;
  /** The entry itself says deprecated (a lifecycle or metadata extension). */
  readonly deprecated?: boolean;
}

export interface CatalogMemory {
  /** Every identifier the catalog listed, inline nested catalogs included. */
  readonly listed: readonly string[];
  /** Entries served by URL: cards and nested catalogs. */
  readonly references: readonly EntryReference[];
}

export interface CrawlState {
  readonly documents: Readonly<Record<string, DocumentState>>;
  readonly catalogs: Readonly<Record<string, CatalogMemory>>;
  /** The root catalogs discovery found last time; re-crawled when discovery fails, so an outage tombstones nothing. */
  readonly roots: readonly string[];
  /** Every identifier the source listed last time: the base of `gone`. */
  readonly listed: readonly string[];
}

export const EMPTY_CRAWL_STATE: CrawlState = { documents: {}, catalogs: {}, roots: [], listed: [] };

export type CrawlRecordKind = 'ai-card' | 'a2a' | 'mcp-server' | 'ai-catalog' | 'artifact';
export type CrawlRecordStatus = 'active' | 'deprecated';

export interface CrawlProvenance {
  /** The source the crawl started from. */
  readonly sourceUrl: string;
  /** The catalog that listed the record (an inline nested catalog: its parent's URL and a `#` pointer). */
  readonly catalogUrl: string;
  /** Where the bytes were served (after redirects); absent for inline `data`. */
  readonly documentUrl?: string;
  readonly fetchedAt: string;
  readonly etag?: string;
  readonly lastModified?: string;
  readonly digest: string;
}

export interface CrawlRecord {
  /** Exactly as the source states it; never rewritten, never given a local id. */
  readonly identifier: string;
  readonly kind: CrawlRecordKind;
  /** The entry's media type (final catalogs). */
  readonly type?: string;
  readonly version?: string;
  /** `version:<v>` when the entry or card has a version, else `updatedAt:<t>` (AI Card v1, §1.2), else `digest:<d>`. */
  readonly revisionKey: string;
  /** The exact bytes fetched (inline `data`: its UTF-8 JCS form). */
  readonly bytes: Uint8Array;
  /** `sha-256:lowerhex` of `bytes`. */
  readonly digest: string;
  readonly provenance: CrawlProvenance;
  readonly status: CrawlRecordStatus;
}

export const CRAWL_PROBLEM_CODES = [
  'SOURCE_URL_INVALID',
  'DISCOVERY_NO_CATALOG',
  'CATALOG_CONTENT_TYPE',
  'CATALOG_INVALID',
  'CATALOG_TOO_MANY_ENTRIES',
  'CATALOG_CYCLE',
  'CATALOG_TOO_DEEP',
  'ARD_NOT_A_CATALOG',
  'ENTRY_INVALID',
  'CARD_INVALID',
  'CARD_ID_MISMATCH',
  'DIGEST_MISMATCH',
  'CRAWL_DEADLINE',
  'CRAWL_DOCUMENT_LIMIT',
  /** A defect of the crawler itself, reported so the rest of the crawl survives it. */
  'CRAWL_INTERNAL_ERROR',
] as const;
/** One of CRAWL_PROBLEM_CODES, or a fetch failure code passed through from the port (FETCH_*). */
export type CrawlProblemCode = (typeof CRAWL_PROBLEM_CODES)[number] | (string & {});

export interface CrawlProblem {
  /** The document the problem is about (for an entry: its catalog). */
  readonly url: string;
  readonly code: CrawlProblemCode;
  /** JSON pointer inside that document; `''` for the whole document. */
  readonly pointer: string;
  readonly message: string;
}

export interface CrawlReport {
  readonly source: string;
  readonly fetchedAt: string;
  /** New or changed documents only: an unchanged one (304, or the same digest) makes no record. */
  readonly records: readonly CrawlRecord[];
  /** Identifiers whose documents were unchanged since the previous crawl. */
  readonly unchanged: readonly string[];
  /** Identifiers listed by the previous crawl and not by this one: the registry tombstones them. */
  readonly gone: readonly string[];
  readonly problems: readonly CrawlProblem[];
}

export interface CrawlOutcome {
  readonly report: CrawlReport;
  readonly nextState: CrawlState;
}
