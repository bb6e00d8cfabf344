/**
 * Federation (CARDS.md §5 "Federation and crawling"): the operator's sources (add, list, remove), crawling one now,
 * crawling the due ones (the scheduler), and the public read of what sources said about an identifier.
 *
 * A crawl (`@trustmesh/cards-federation` `crawlSource`) is claimed first (`SourceCrawlStarted` at the source stream's
 * expected version: one replica wins, the other hears CRAWL_IN_PROGRESS), then its records are stored on the same
 * stream at the next expected versions, as `RemoteCardObserved` (exact bytes, provenance, the source's status, the
 * identifier exactly as the source states it) and `RemoteCardGone` (the source stopped listing it), and closed with
 * `SourceCrawled` (summary, problems, the crawler state the next crawl starts from). Remote records are projected
 * into their own table: they never replace, rename or collide with a local card (`GET /v1/cards/{id}` stays local;
 * `?origin=remote` lists the copies with their provenance).
 */
import { randomUUID } from 'node:crypto';

import { crawlSource, type CrawlFetcher, type CrawlLimits, type CrawlOutcome, type CrawlProblem, type CrawlState } from '@trustmesh/cards-federation';
import { ConcurrencyError } from '@trustmesh/platform-event-store';
import type { Logger } from '@trustmesh/platform-logging';

import { MAX_IDENTIFIER_LENGTH } from '../domain/card-identifier';
import type { PrismaClient } from '../persistence/generated/prisma/client';
import type { RegistryCaller } from '../service/registry-callers';
import { fail, fromRefusal, succeed, type ServiceResult } from '../service/registry-service.result';
import type { FederationRepository } from './federation.repository';
import { batches, observed } from './crawl-records.mapping';
import type { RemoteCardGone, SourceCrawled, SourceEvent } from './federation.stream';
import { claimVerdict, type LastCrawl } from './source-crawl.aggregate';
import { decideAdd, decideRemove, type SourceEntry, type SourceListDecision, type SourceListState } from './source-list.aggregate';
import { checkSourceUrl } from './source-url.rule';

export const DEFAULT_INTERVAL_SECONDS = 3600;
export const MIN_INTERVAL_SECONDS = 60;
export const MAX_INTERVAL_SECONDS = 7 * 24 * 3600;
/** After the crawl deadline, the time a claim still holds for storing what was found. */
const STORE_GRACE_MS = 30_000;
const SOURCE_ID = /^[0-9a-f]{32}$/;
/** Problems and identifiers kept in a crawl's summary and answer. */
const MAX_LISTED = 50;
/** Beyond this the crawler state is stored without its per-URL memory (the next crawl fetches unconditionally). */
const MAX_STATE_CHARS = 384 * 1024;
const MIRRORS_LISTED = 100;
const DECIDE_ATTEMPTS = 8;

export interface SourceView {
  sourceId: string;
  url: string;
  intervalSeconds: number;
  addedAt: string;
  crawling: boolean;
  lastCrawl: LastCrawl | null;
  /** When the scheduler crawls it next (null while a crawl runs). */
  nextCrawlAt: string | null;
}

export interface CrawlAnswer {
  sourceId: string;
  url: string;
  crawlId: string;
  startedAt: string;
  finishedAt: string;
  summary: { records: number; unchanged: number; gone: number; problems: number };
  /** Identifiers stored (new or changed) and gone (tombstoned), the first MAX_LISTED of each. */
  stored: string[];
  gone: string[];
  problems: CrawlProblem[];
}

export interface RemoteCopy {
  sourceId: string;
  identifier: string;
  origin: 'remote';
  kind: string;
  type?: string;
  version?: string;
  revisionKey: string;
  digest: string;
  size: number;
  status: string;
  goneAt?: string;
  provenance: { sourceUrl: string; catalogUrl: string; documentUrl?: string; fetchedAt: string; etag?: string; lastModified?: string; digest: string };
}

export interface RemoteBytes {
  kind: string;
  /** `sha-256:<lowerhex>` */
  digest: string;
  status: string;
  sourceUrl: string;
  bytes: Buffer;
}

export interface FederationServiceDeps {
  repository: FederationRepository;
  fetcher: CrawlFetcher;
  prisma: PrismaClient;
  logger: Logger;
  now: () => Date;
  replicaId: string;
  crawlDeadlineMs: number;
  /** Largest document a crawl reads (the card bound: its event must fit the store). */
  maxDocumentBytes: number;
}

type Attempt = { kind: 'running' } | { kind: 'not_due' } | { kind: 'superseded' } | { kind: 'done'; answer: CrawlAnswer };

export class FederationService {
  private readonly shutdown = new AbortController();
  private readonly limits: Partial<CrawlLimits>;
  private readonly fetcher: CrawlFetcher;

  constructor(private readonly deps: FederationServiceDeps) {
    this.limits = { deadlineMs: deps.crawlDeadlineMs, maxBytesPerDocument: deps.maxDocumentBytes, maxEntriesPerCatalog: 500, maxDocumentsPerCrawl: 200 };
    // Every fetch also stops when the registry shuts down.
    const signal = this.shutdown.signal;
    this.fetcher = { get: (url, request) => deps.fetcher.get(url, { ...request, signal: request.signal ? AbortSignal.any([request.signal, signal]) : signal }) };
  }

  /** Stops every crawl in flight (their fetches are aborted and nothing more is stored). */
  close(): void {
    this.shutdown.abort();
  }

  async addSource(caller: RegistryCaller, body: unknown): Promise<ServiceResult<SourceView & { created: boolean }>> {
    const refused = operatorOnly<SourceView & { created: boolean }>(caller);
    if (refused) return refused;
    const fields = readSourceBody(body);
    if (!fields.ok) return fields;
    const checked = checkSourceUrl(fields.value.url);
    if (!checked.ok) return fail('invalid', checked.code, checked.message, '/url');
    const now = this.deps.now().toISOString();
    const decision = await this.decideSources((state) => decideAdd(state, { sourceId: randomUUID().replace(/-/g, ''), url: checked.url, intervalSeconds: fields.value.intervalSeconds, by: accountOf(caller), now }));
    if (!decision) return fail('conflict', 'SOURCES_CHANGED', 'The source list kept changing during this call; retry it');
    if (!decision.decision.ok) return fromRefusal(decision.decision.refusal);
    const created = decision.decision.events.length > 0;
    if (created) this.deps.logger.log('info', 'federation source added', { sourceId: decision.decision.source.sourceId });
    return succeed({ ...(await this.view(decision.decision.source)), created });
  }

  async listSources(caller: RegistryCaller): Promise<ServiceResult<{ sources: SourceView[] }>> {
    const refused = operatorOnly<{ sources: SourceView[] }>(caller);
    if (refused) return refused;
    const { state } = await this.deps.repository.loadSources();
    const sources = [...state.sources.values()].sort((a, b) => (a.addedAt === b.addedAt ? a.sourceId.localeCompare(b.sourceId) : a.addedAt.localeCompare(b.addedAt)));
    const views: SourceView[] = [];
    for (const source of sources) views.push(await this.view(source));
    return succeed({ sources: views });
  }

  async getSource(caller: RegistryCaller, sourceId: string): Promise<ServiceResult<SourceView>> {
    const refused = operatorOnly<SourceView>(caller);
    if (refused) return refused;
    const source = await this.source(sourceId);
    return source ? succeed(await this.view(source)) : notFound();
  }

  /** Removes the source; the read model turns every record it brought into a tombstone. */
  async removeSource(caller: RegistryCaller, sourceId: string): Promise<ServiceResult<{ sourceId: string; removed: true }>> {
    const refused = operatorOnly<{ sourceId: string; removed: true }>(caller);
    if (refused) return refused;
    if (!SOURCE_ID.test(sourceId)) return notFound();
    const now = this.deps.now().toISOString();
    const decision = await this.decideSources((state) => decideRemove(state, { sourceId, by: accountOf(caller), now }));
    if (!decision) return fail('conflict', 'SOURCES_CHANGED', 'The source list kept changing during this call; retry it');
    if (!decision.decision.ok) return fromRefusal(decision.decision.refusal);
    this.deps.logger.log('info', 'federation source removed', { sourceId });
    return succeed({ sourceId, removed: true });
  }

  /** Crawls the source now, unless a crawl of it is running anywhere (409 CRAWL_IN_PROGRESS). */
  async crawlNow(caller: RegistryCaller, sourceId: string): Promise<ServiceResult<CrawlAnswer>> {
    const refused = operatorOnly<CrawlAnswer>(caller);
    if (refused) return refused;
    const source = await this.source(sourceId);
    if (!source) return notFound();
    const attempt = await this.crawl(source, 'now');
    if (attempt.kind === 'done') return succeed(attempt.answer);
    if (attempt.kind === 'superseded') return fail('conflict', 'CRAWL_SUPERSEDED', 'Another replica claimed this source while the crawl ran; its crawl is the one kept');
    return fail('conflict', 'CRAWL_IN_PROGRESS', 'This source is being crawled right now; read its lastCrawl when that ends');
  }

  /** Crawls every due source this replica can claim, one at a time; the scheduler calls it. */
  async crawlDue(): Promise<number> {
    const { state } = await this.deps.repository.loadSources();
    let crawled = 0;
    for (const source of state.sources.values()) {
      if (this.shutdown.signal.aborted) break;
      const attempt = await this.crawl(source, 'schedule');
      if (attempt.kind === 'done') crawled += 1;
    }
    return crawled;
  }

  /** What the sources said about `identifier` (any status, tombstones included), with provenance. */
  async remoteCopies(identifier: string): Promise<ServiceResult<{ identifier: string; origin: 'remote'; mirrors: RemoteCopy[] }>> {
    if (identifier.length === 0 || identifier.length > MAX_IDENTIFIER_LENGTH) return fail('invalid', 'IDENTIFIER_TOO_LONG', `Identifiers are 1-${MAX_IDENTIFIER_LENGTH} characters`, '/identifier');
    const rows = await this.deps.prisma.registryRemoteCardView.findMany({
      where: { identifier },
      omit: { content: true },
      orderBy: [{ sourceId: 'asc' }, { revisionKey: 'asc' }],
      take: MIRRORS_LISTED,
    });
    if (rows.length === 0) return fail('not_found', 'REMOTE_CARD_NOT_FOUND', 'No federation source has listed this identifier', '/identifier');
    const mirrors = rows.map(
      (row): RemoteCopy => ({
        sourceId: row.sourceId,
        identifier: row.identifier,
        origin: 'remote',
        kind: row.kind,
        ...(row.type !== null ? { type: row.type } : {}),
        ...(row.version !== null ? { version: row.version } : {}),
        revisionKey: row.revisionKey,
        digest: row.digest,
        size: row.size,
        status: row.status,
        ...(row.goneAt !== null ? { goneAt: row.goneAt.toISOString() } : {}),
        provenance: {
          sourceUrl: row.sourceUrl,
          catalogUrl: row.catalogUrl,
          ...(row.documentUrl !== null ? { documentUrl: row.documentUrl } : {}),
          fetchedAt: row.fetchedAt.toISOString(),
          ...(row.etag !== null ? { etag: row.etag } : {}),
          ...(row.lastModified !== null ? { lastModified: row.lastModified } : {}),
          digest: row.digest,
        },
      }),
    );
    return succeed({ identifier, origin: 'remote', mirrors });
  }

  /** The exact bytes a source served for one record (a tombstone answers 410 REMOTE_CARD_GONE). */
  async remoteBytes(identifier: string, sourceId: string, revisionKey: string): Promise<ServiceResult<RemoteBytes>> {
    if (identifier.length === 0 || identifier.length > MAX_IDENTIFIER_LENGTH) return fail('invalid', 'IDENTIFIER_TOO_LONG', `Identifiers are 1-${MAX_IDENTIFIER_LENGTH} characters`, '/identifier');
    if (!SOURCE_ID.test(sourceId) || revisionKey.length === 0 || revisionKey.length > 512) return fail('not_found', 'REMOTE_CARD_NOT_FOUND', 'No federation source has listed this record', '/identifier');
    const row = await this.deps.prisma.registryRemoteCardView.findUnique({ where: { sourceId_identifier_revisionKey: { sourceId, identifier, revisionKey } } });
    if (!row) return fail('not_found', 'REMOTE_CARD_NOT_FOUND', 'No federation source has listed this record', '/identifier');
    if (row.status === 'deleted') {
      const tombstone = { identifier, sourceId, revisionKey, status: 'deleted', ...(row.goneAt !== null ? { goneAt: row.goneAt.toISOString() } : {}) };
      return { ok: false, failure: { kind: 'gone', code: 'REMOTE_CARD_GONE', detail: 'The source no longer lists this record', issues: [{ path: '/identifier', code: 'REMOTE_CARD_GONE', severity: 'error', message: 'The source no longer lists this record' }], extra: { tombstone } } };
    }
    return succeed({ kind: row.kind, digest: row.digest, status: row.status, sourceUrl: row.sourceUrl, bytes: Buffer.from(row.content) });
  }

  private async crawl(source: SourceEntry, trigger: 'now' | 'schedule'): Promise<Attempt> {
    const { repository } = this.deps;
    const { state, version } = await repository.loadSource(source.sourceId);
    const started = this.deps.now();
    const verdict = claimVerdict(state, started.getTime(), trigger, source.intervalSeconds);
    if (verdict !== 'claim') return { kind: verdict };
    const crawlId = randomUUID();
    const startedAt = started.toISOString();
    const leaseExpiresAt = new Date(started.getTime() + this.deps.crawlDeadlineMs + STORE_GRACE_MS).toISOString();
    let stored: number;
    try {
      stored = await repository.appendSource(source.sourceId, version, [{ type: 'SourceCrawlStarted', data: { sourceId: source.sourceId, crawlId, replicaId: this.deps.replicaId, trigger, startedAt, leaseExpiresAt } }]);
    } catch (error) {
      if (error instanceof ConcurrencyError) return { kind: 'running' };
      throw error;
    }
    this.deps.logger.log('info', 'federation crawl started', { sourceId: source.sourceId, crawlId, trigger });

    const outcome = await this.runCrawler(source.url, state.crawlState);
    if (this.shutdown.signal.aborted) return { kind: 'superseded' };
    const { report } = outcome;
    // A source removed while it was crawled brings nothing more in.
    const stillListed = (await repository.loadSources()).state.sources.has(source.sourceId);
    const finishedAt = this.deps.now().toISOString();
    const records: SourceEvent[] = stillListed
      ? [
          ...report.records.map((record): SourceEvent => ({ type: 'RemoteCardObserved', data: observed(source.sourceId, crawlId, record) })),
          ...report.gone.map((identifier): SourceEvent => ({ type: 'RemoteCardGone', data: { sourceId: source.sourceId, crawlId, identifier, goneAt: finishedAt } satisfies RemoteCardGone })),
        ]
      : [];
    const summary = { records: report.records.length, unchanged: report.unchanged.length, gone: report.gone.length, problems: report.problems.length };
    const problems = report.problems.slice(0, MAX_LISTED);
    const crawled: SourceCrawled = { sourceId: source.sourceId, crawlId, finishedAt, summary, problems, state: boundedState(outcome.nextState) };
    try {
      for (const batch of batches(records)) stored = await repository.appendSource(source.sourceId, stored, batch);
      await repository.appendSource(source.sourceId, stored, [{ type: 'SourceCrawled', data: crawled }]);
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      // Our claim expired and another replica claimed the source: its crawl is the one stored.
      this.deps.logger.log('warn', 'federation crawl superseded', { sourceId: source.sourceId, crawlId });
      return { kind: 'superseded' };
    }
    this.deps.logger.log('info', 'federation crawl finished', { sourceId: source.sourceId, crawlId, ...summary });
    return {
      kind: 'done',
      answer: {
        sourceId: source.sourceId,
        url: source.url,
        crawlId,
        startedAt,
        finishedAt,
        summary,
        stored: [...new Set(report.records.map((record) => record.identifier))].slice(0, MAX_LISTED),
        gone: report.gone.slice(0, MAX_LISTED),
        problems,
      },
    };
  }

  private async runCrawler(url: string, previous: CrawlState | undefined): Promise<CrawlOutcome> {
    try {
      return await crawlSource({ url }, previous, { fetcher: this.fetcher, limits: this.limits, now: this.deps.now });
    } catch (error) {
      // The crawler reports failures as problems; a throw is its own defect: keep the previous state, tombstone nothing.
      this.deps.logger.log('error', 'federation crawler failed', { errorName: error instanceof Error ? error.name : 'unknown' });
      const fetchedAt = this.deps.now().toISOString();
      return {
        report: { source: url, fetchedAt, records: [], unchanged: [], gone: [], problems: [{ url, code: 'CRAWL_INTERNAL_ERROR', pointer: '', message: 'The crawl failed inside the registry; nothing was changed' }] },
        nextState: previous ?? { documents: {}, catalogs: {}, roots: [], listed: [] },
      };
    }
  }

  private async decideSources(decide: (state: SourceListState) => SourceListDecision): Promise<{ decision: SourceListDecision } | null> {
    for (let attempt = 0; attempt < DECIDE_ATTEMPTS; attempt += 1) {
      const { state, version } = await this.deps.repository.loadSources();
      const decision = decide(state);
      if (!decision.ok || decision.events.length === 0) return { decision };
      try {
        await this.deps.repository.appendSources(version, decision.events);
        return { decision };
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
    return null;
  }

  private async source(sourceId: string): Promise<SourceEntry | undefined> {
    if (!SOURCE_ID.test(sourceId)) return undefined;
    return (await this.deps.repository.loadSources()).state.sources.get(sourceId);
  }

  private async view(source: SourceEntry): Promise<SourceView> {
    const { state } = await this.deps.repository.loadSource(source.sourceId);
    const nowMs = this.deps.now().getTime();
    const crawling = state.running !== null && Date.parse(state.running.leaseExpiresAt) > nowMs;
    const next = state.last ? new Date(Date.parse(state.last.finishedAt) + source.intervalSeconds * 1000).toISOString() : source.addedAt;
    return { sourceId: source.sourceId, url: source.url, intervalSeconds: source.intervalSeconds, addedAt: source.addedAt, crawling, lastCrawl: state.last, nextCrawlAt: crawling ? null : next };
  }
}

/** The state the next crawl starts from; too large a state keeps no per-URL memory (the next crawl fetches whole). */
function boundedState(state: CrawlState): CrawlState {
  return JSON.stringify(state).length <= MAX_STATE_CHARS ? state : { ...state, documents: {} };
}

function readSourceBody(body: unknown): ServiceResult<{ url: string; intervalSeconds: number }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail('invalid', 'BODY_NOT_OBJECT', 'The body must be a JSON object');
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== 'url' && key !== 'intervalSeconds') return fail('invalid', 'FIELD_UNKNOWN', 'Unknown member; allowed: url, intervalSeconds', `/${key.slice(0, 64).replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
  const { url, intervalSeconds } = record;
  if (url === undefined) return fail('invalid', 'FIELD_REQUIRED', 'url is required', '/url');
  if (typeof url !== 'string') return fail('invalid', 'FIELD_TYPE', 'url must be a string', '/url');
  if (intervalSeconds !== undefined && (typeof intervalSeconds !== 'number' || !Number.isInteger(intervalSeconds) || intervalSeconds < MIN_INTERVAL_SECONDS || intervalSeconds > MAX_INTERVAL_SECONDS)) {
    return fail('invalid', 'INTERVAL_INVALID', `intervalSeconds must be a whole number from ${MIN_INTERVAL_SECONDS} to ${MAX_INTERVAL_SECONDS}`, '/intervalSeconds');
  }
  return succeed({ url, intervalSeconds: (intervalSeconds as number | undefined) ?? DEFAULT_INTERVAL_SECONDS });
}

const operatorOnly = <T>(caller: RegistryCaller): ServiceResult<T> | null => (caller.kind === 'operator' ? null : fail('forbidden', 'OPERATOR_ONLY', 'Only an operator credential may do this'));
const accountOf = (caller: RegistryCaller) => (caller.kind === 'operator' ? caller.accountId : caller.publisherId);
const notFound = <T>(): ServiceResult<T> => fail('not_found', 'SOURCE_NOT_FOUND', 'No source has this id', '/sourceId');
