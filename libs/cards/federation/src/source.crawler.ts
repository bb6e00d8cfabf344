/**
 * `crawlSource(source, previousState, deps) -> {report, nextState}`: one crawl of one source (CARDS.md §2.3
 * Discovery and Nesting, §5 "Federation and crawling"). It discovers the root catalogs, reads each catalog (seed or
 * final) with conditional GETs, follows nested catalogs up to `maxCatalogLevels` with a per-path visited set (a cycle is
 * a problem, never a loop), admits every card an entry names (exact-byte sha-256, entry digest, catalog id == card id)
 * and reports what the registry must store, what is unchanged, and what the source stopped listing.
 *
 * Rules that keep a registry safe from a flaky or hostile source:
 * - nothing throws: every failure is a problem `{url, code, pointer, message}` and the rest of the crawl goes on;
 * - a catalog that cannot be read (network, deadline, invalid) keeps what the previous crawl remembered of it, so only
 *   a catalog read successfully (or a 410) can make an identifier `gone`;
 * - an unchanged document (304, or 200 with the remembered digest) makes no record and is not re-parsed;
 * - identifiers are kept exactly as the source states them and compared as plain strings.
 */
import { AI_CATALOG_MEDIA_TYPE } from '@trustmesh/cards-documents';
import { canonicalJson } from '@trustmesh/shared-canonical-json';
import { admitArtifact, digestMatches, sha256Of } from './artifact.intake';
import { readCatalog } from './catalog.reader';
import { CrawlSession } from './crawl.session';
import {
  DEFAULT_CRAWL_LIMITS,
  EMPTY_CRAWL_STATE,
  type CatalogMemory,
  type CrawlDeps,
  type CrawlFetchResponse,
  type CrawlLimits,
  type CrawlOutcome,
  type CrawlRecord,
  type CrawlSource,
  type CrawlState,
  type DocumentState,
  type EntryReference,
} from './crawl.types';
import { discoverRoots } from './source.discovery';

const CATALOG_ACCEPT = `${AI_CATALOG_MEDIA_TYPE}, application/json;q=0.9`;
const UTF8 = new TextEncoder();

interface CatalogVisit {
  /** Root = 1. */
  readonly level: number;
  /** The catalogs above this one on the way here (the per-path visited set). */
  readonly path: readonly string[];
  readonly ard: boolean;
  readonly optional: boolean;
  /** The entry of the parent catalog naming this one (nested catalogs only). */
  readonly reference?: EntryReference;
  readonly parentUrl?: string;
}

export async function crawlSource(source: CrawlSource, previousState: CrawlState | undefined, deps: CrawlDeps): Promise<CrawlOutcome> {
  // A state persisted by an older build may lack members; missing ones start empty.
  const previous: CrawlState = { ...EMPTY_CRAWL_STATE, ...previousState };
  const limits = boundedLimits(deps.limits);
  const fetchedAt = (deps.now ?? (() => new Date()))().toISOString();
  let sourceUrl: string;
  try {
    const parsed = new URL(source.url);
    if (parsed.protocol !== 'https:') throw new TypeError('not https');
    sourceUrl = parsed.href;
  } catch {
    return {
      report: {
        source: source.url,
        fetchedAt,
        records: [],
        unchanged: [],
        gone: [],
        problems: [{ url: source.url, code: 'SOURCE_URL_INVALID', pointer: '', message: 'A source must be an absolute https: URL (a host origin or a page on it).' }],
      },
      nextState: previous,
    };
  }
  const crawl = new SourceCrawl(sourceUrl, previous, limits, fetchedAt, deps);
  try {
    await crawl.run();
  } finally {
    crawl.session.close();
  }
  return crawl.outcome();
}

class SourceCrawl {
  readonly session: CrawlSession;
  private readonly records: CrawlRecord[] = [];
  private readonly unchanged = new Set<string>();
  private readonly listed = new Set<string>();
  private readonly documents = new Map<string, DocumentState>();
  private readonly catalogs = new Map<string, CatalogMemory>();
  private readonly started = new Set<string>();
  private readonly foundRoots = new Set<string>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly sourceUrl: string,
    private readonly previous: CrawlState,
    private readonly limits: CrawlLimits,
    private readonly fetchedAt: string,
    private readonly deps: CrawlDeps,
  ) {
    this.session = new CrawlSession(deps.fetcher, limits, previous.documents);
  }

  async run(): Promise<void> {
    const discovery = await discoverRoots(this.sourceUrl, this.session);
    const roots = [...discovery.roots];
    if (!discovery.complete) {
      for (const url of this.previous.roots) if (!roots.some((root) => root.url === url)) roots.push({ url, ard: false, optional: false });
    }
    for (const root of roots) this.spawn(this.crawlCatalog(root.url, { level: 1, path: [], ard: root.ard, optional: root.optional }), root.url);
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    if (this.foundRoots.size === 0) {
      this.session.problem(
        this.sourceUrl,
        'DISCOVERY_NO_CATALOG',
        `No catalog was found: neither ${new URL(this.sourceUrl).origin}/.well-known/ai-catalog.json nor ard.json exists, and the source page names none by a Link header or <link rel="ai-catalog">.`,
      );
    }
  }

  outcome(): CrawlOutcome {
    const gone = [...new Set(this.previous.listed)].filter((identifier) => !this.listed.has(identifier)).sort();
    return {
      report: {
        source: this.sourceUrl,
        fetchedAt: this.fetchedAt,
        records: uniqueRecords(this.records),
        unchanged: [...this.unchanged].sort(),
        gone,
        problems: [...this.session.problems].sort((a, b) => compare(a.url, b.url) || compare(a.pointer, b.pointer) || compare(a.code, b.code)),
      },
      nextState: {
        documents: Object.fromEntries([...this.documents].sort(([a], [b]) => compare(a, b))),
        catalogs: Object.fromEntries([...this.catalogs].sort(([a], [b]) => compare(a, b))),
        roots: [...this.foundRoots].sort(),
        listed: [...this.listed].sort(),
      },
    };
  }

  private spawn(task: Promise<void>, url: string): void {
    const guarded = task.catch(() => this.session.problem(url, 'CRAWL_INTERNAL_ERROR', 'The crawler failed on this document; the rest of the crawl went on.'));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
  }

  private async crawlCatalog(url: string, visit: CatalogVisit): Promise<void> {
    const where = visit.parentUrl ?? url;
    const pointer = visit.reference?.pointer ?? '';
    if (visit.level > this.limits.maxCatalogLevels) {
      return this.session.problem(where, 'CATALOG_TOO_DEEP', `The nested catalog ${url} would be level ${visit.level}; at most ${this.limits.maxCatalogLevels} levels are followed.`, pointer);
    }
    if (visit.path.includes(url)) {
      return this.session.problem(where, 'CATALOG_CYCLE', `The nested catalog ${url} is already on this path (${[...visit.path, url].join(' -> ')}); it was not followed again.`, pointer);
    }
    if (this.started.has(url)) return;
    this.started.add(url);
    const memory = own(this.previous.catalogs, url);
    // As for cards: remembered state counts only if a 304 would prove the entry's digest (when it names one).
    const known = memory ? this.session.remembered(url) : undefined;
    const digestNamed = visit.reference?.digest;
    const remembered = known !== undefined && (digestNamed === undefined || digestNamed === known.digest) ? known : undefined;
    const loaded = await this.session.load(url, { conditional: remembered !== undefined, accept: CATALOG_ACCEPT }, remembered);
    if (!loaded.ok) {
      const { error, message, status } = loaded.failure;
      if (visit.optional && (status === 404 || status === 410)) return;
      // A probe that failed otherwise is a root only if an earlier crawl read a catalog there.
      if (visit.level === 1 && (!visit.optional || memory !== undefined)) this.foundRoots.add(url);
      const kept = status === 410 ? 'the catalog is gone (410), so what it listed is gone too' : 'what earlier crawls read from it is kept';
      this.session.problem(url, error, `The catalog could not be read (${message ?? error}); ${kept}.`);
      if (status !== 410) this.carryForward(url);
      return;
    }
    if (visit.level === 1) this.foundRoots.add(url);
    const response = loaded.response;
    const digest = response.notModified ? remembered?.digest : sha256Of(response.bytes);
    if (memory && remembered && digest === remembered.digest) {
      this.documents.set(url, refreshed(remembered, response, this.fetchedAt));
      this.catalogs.set(url, memory);
      for (const identifier of memory.listed) this.listed.add(identifier);
      if (visit.reference) this.unchanged.add(visit.reference.identifier);
      return this.follow(url, memory.references, visit);
    }
    if (response.notModified || digest === undefined) {
      this.session.problem(url, 'FETCH_HTTP_STATUS', 'The server answered 304 Not Modified to a request that was not conditional.');
      return this.carryForward(url);
    }
    if (visit.reference?.digest !== undefined && digestMatches(visit.reference.digest, response.bytes) !== true) {
      this.session.problem(where, 'DIGEST_MISMATCH', `The entry's digest ${visit.reference.digest} does not match the catalog served at ${url} (${digest}); it was not followed.`, `${pointer}/digest`);
      return this.carryForward(url);
    }
    const read = readCatalog(response.bytes, {
      contentType: response.headers['content-type'],
      ard: visit.ard,
      level: visit.level,
      maxLevels: this.limits.maxCatalogLevels,
      maxBytes: this.limits.maxBytesPerDocument,
      maxEntries: this.limits.maxEntriesPerCatalog,
      compatibility: this.deps.compatibility === true,
    });
    if (!read.ok) {
      for (const problem of read.problems) this.session.problem(url, problem.code, problem.message, problem.pointer);
      return this.carryForward(url);
    }
    const { reading } = read;
    for (const problem of reading.entryProblems) this.session.problem(url, problem.code, problem.message, problem.pointer);
    this.documents.set(url, { ...validators(response), digest, fetchedAt: this.fetchedAt });
    this.catalogs.set(url, { listed: reading.listed, references: reading.references });
    for (const identifier of reading.listed) this.listed.add(identifier);
    if (visit.reference && visit.parentUrl !== undefined) this.recordNestedCatalog(visit.reference, visit.parentUrl, response, digest);
    for (const entry of reading.inline) {
      const admission = admitArtifact({
        identifier: entry.identifier,
        pointer: entry.pointer,
        identifierMember: 'identifier',
        type: entry.type,
        ...(entry.version !== undefined ? { version: entry.version } : {}),
        ...(entry.digest !== undefined ? { digest: entry.digest } : {}),
        entryDeprecated: entry.deprecated,
        // CARDS.md §2.3 digest: "with data, hash the UTF-8 JCS form".
        bytes: UTF8.encode(canonicalJson(entry.data)),
        maxBytes: this.limits.maxBytesPerDocument,
        provenance: { sourceUrl: this.sourceUrl, catalogUrl: catalogUrlOf(url, entry.pointer), fetchedAt: this.fetchedAt, ...validators(response) },
      });
      if (admission.ok) this.records.push(admission.record);
      else this.session.problem(url, admission.code, admission.message, admission.pointer);
    }
    this.follow(url, reading.references, visit);
  }

  private follow(catalogUrl: string, references: readonly EntryReference[], visit: CatalogVisit): void {
    for (const reference of references) {
      if (reference.type === AI_CATALOG_MEDIA_TYPE) {
        const nested: CatalogVisit = {
          level: visit.level + 1 + reference.inlineDepth,
          path: [...visit.path, catalogUrl],
          ard: false,
          optional: false,
          reference,
          parentUrl: catalogUrl,
        };
        this.spawn(this.crawlCatalog(reference.url, nested), reference.url);
      } else {
        this.spawn(this.crawlArtifact(reference, catalogUrl), reference.url);
      }
    }
  }

  private async crawlArtifact(reference: EntryReference, catalogUrl: string): Promise<void> {
    const { url, identifier } = reference;
    const remembered = this.session.remembered(url);
    // Validators are sent only when a 304 would prove everything: the same identifier, and the entry's digest (if
    // any) equal to the one of the bytes remembered.
    const usable =
      remembered !== undefined && remembered.identifier === identifier && (reference.digest === undefined || reference.digest === remembered.digest) ? remembered : undefined;
    const loaded = await this.session.load(url, { conditional: usable !== undefined }, usable);
    if (!loaded.ok) {
      const { error, message } = loaded.failure;
      this.session.problem(url, error, `The artifact of "${identifier}" (listed at ${catalogUrl}#${reference.pointer}) could not be read: ${message ?? error}.`);
      this.keepDocument(url);
      return;
    }
    const response = loaded.response;
    if (response.notModified) {
      if (usable === undefined) {
        this.session.problem(url, 'FETCH_HTTP_STATUS', 'The server answered 304 Not Modified to a request that was not conditional.');
        return;
      }
      this.documents.set(url, refreshed(usable, response, this.fetchedAt));
      this.unchanged.add(identifier);
      return;
    }
    const admission = admitArtifact({
      identifier,
      pointer: reference.pointer,
      identifierMember: reference.identifierMember,
      ...(reference.type !== undefined ? { type: reference.type } : {}),
      ...(reference.version !== undefined ? { version: reference.version } : {}),
      ...(reference.digest !== undefined ? { digest: reference.digest } : {}),
      entryDeprecated: reference.deprecated === true,
      bytes: response.bytes,
      maxBytes: this.limits.maxBytesPerDocument,
      provenance: { sourceUrl: this.sourceUrl, catalogUrl: catalogUrlOf(catalogUrl, reference.pointer), documentUrl: response.url, fetchedAt: this.fetchedAt, ...validators(response) },
    });
    if (!admission.ok) {
      this.session.problem(catalogUrl, admission.code, admission.message, admission.pointer);
      this.keepDocument(url);
      return;
    }
    const { record } = admission;
    this.documents.set(url, { ...validators(response), digest: record.digest, fetchedAt: this.fetchedAt, identifier });
    if (remembered?.digest === record.digest && remembered.identifier === identifier) this.unchanged.add(identifier);
    else this.records.push(record);
  }

  private recordNestedCatalog(reference: EntryReference, parentUrl: string, response: CrawlFetchResponse, digest: string): void {
    const version = reference.version;
    this.records.push({
      identifier: reference.identifier,
      kind: 'ai-catalog',
      type: AI_CATALOG_MEDIA_TYPE,
      ...(version !== undefined ? { version } : {}),
      revisionKey: version !== undefined ? `version:${version}` : `digest:${digest}`,
      bytes: response.bytes,
      digest,
      provenance: {
        sourceUrl: this.sourceUrl,
        catalogUrl: catalogUrlOf(parentUrl, reference.pointer),
        documentUrl: response.url,
        fetchedAt: this.fetchedAt,
        ...validators(response),
        digest,
      },
      status: reference.deprecated === true ? 'deprecated' : 'active',
    });
  }

  /** Keeps what the previous crawl knew of a catalog it could not read this time, nested catalogs included. */
  private carryForward(url: string, seen = new Set<string>()): void {
    if (seen.has(url)) return;
    seen.add(url);
    const memory = own(this.previous.catalogs, url);
    if (!memory) return;
    if (!this.catalogs.has(url)) this.catalogs.set(url, memory);
    this.keepDocument(url);
    for (const identifier of memory.listed) this.listed.add(identifier);
    for (const reference of memory.references) {
      if (reference.type === AI_CATALOG_MEDIA_TYPE) this.carryForward(reference.url, seen);
      else this.keepDocument(reference.url);
    }
  }

  private keepDocument(url: string): void {
    const remembered = this.session.remembered(url);
    if (remembered && !this.documents.has(url)) this.documents.set(url, remembered);
  }
}

/** Limits as given, where each is a positive whole number; anything else (0, NaN, negative) takes the default. */
function boundedLimits(given: Partial<CrawlLimits> | undefined): CrawlLimits {
  const limits = { ...DEFAULT_CRAWL_LIMITS };
  for (const key of Object.keys(limits) as (keyof CrawlLimits)[]) {
    const value = given?.[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 1) limits[key] = Math.floor(value);
  }
  return limits;
}

/**
 * Sorted, one record per (identifier, digest): a repeated identifier names the same artifact (CARDS.md §2.3 Nesting),
 * so the same bytes listed by two catalogs are one record, provenanced to the first catalog in URL order.
 */
function uniqueRecords(records: readonly CrawlRecord[]): CrawlRecord[] {
  const sorted = [...records].sort(
    (a, b) => compare(a.identifier, b.identifier) || compare(a.revisionKey, b.revisionKey) || compare(a.provenance.catalogUrl, b.provenance.catalogUrl),
  );
  const seen = new Set<string>();
  return sorted.filter((record) => {
    const key = `${record.identifier}\n${record.digest}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function validators(response: CrawlFetchResponse): { etag?: string; lastModified?: string } {
  return { ...(response.etag !== undefined ? { etag: response.etag } : {}), ...(response.lastModified !== undefined ? { lastModified: response.lastModified } : {}) };
}

/** After a 304 the remembered state stands, with the fetch time and any validators the server sent anew. */
function refreshed(remembered: DocumentState, response: CrawlFetchResponse, fetchedAt: string): DocumentState {
  return { ...remembered, ...validators(response), fetchedAt };
}

/** An entry inside an inline nested catalog is provenanced to that catalog: its parent's URL plus a `#` pointer. */
function catalogUrlOf(catalogUrl: string, entryPointer: string): string {
  const inline = /^(.*\/data)\/entries\/\d+$/.exec(entryPointer);
  return inline ? `${catalogUrl}#${inline[1] ?? ''}` : catalogUrl;
}

function own<T>(map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
