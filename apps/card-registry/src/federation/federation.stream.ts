/**
 * How federation is kept in the event store (CARDS.md §5 "Federation and crawling"):
 * - `registry-federation-sources`: the operator's list of sources, `SourceAdded` / `SourceRemoved` (one small stream,
 *   so adding the same URL twice is decided at one expected version, and listing reads its own writes);
 * - `registry-source-<sourceId>`: one stream per source: `SourceCrawlStarted` (the single-flight claim, appended at the
 *   stream's expected version), the records the crawl brought (`RemoteCardObserved`, `RemoteCardGone`) and
 *   `SourceCrawled` (the crawl's summary and the crawler state the next crawl starts from).
 * Both are published on `registry.cards.v1` (the projection wants every stream whole); the read model projects the
 * remote records apart from local cards and ignores the claims and summaries. `SourceCrawled` carries the crawler's
 * state, bounded (federation.service.ts) so its message stays well under Kafka's 1 MiB.
 */
import type { CrawlProblem, CrawlRecordKind, CrawlRecordStatus, CrawlState } from '@trustmesh/cards-federation';

export const FEDERATION_SOURCES_STREAM = 'registry-federation-sources';
export const sourceStreamId = (sourceId: string) => `registry-source-${sourceId}`;

export interface SourceAdded {
  sourceId: string;
  url: string;
  intervalSeconds: number;
  addedBy: string;
  addedAt: string;
}

export interface SourceRemoved {
  sourceId: string;
  url: string;
  removedBy: string;
  removedAt: string;
}

export type SourceListEvent = { type: 'SourceAdded'; data: SourceAdded } | { type: 'SourceRemoved'; data: SourceRemoved };

export interface SourceCrawlStarted {
  sourceId: string;
  crawlId: string;
  replicaId: string;
  /** `now` for the crawl-now route, `schedule` for the scheduler. */
  trigger: 'now' | 'schedule';
  startedAt: string;
  /** After this instant another replica may claim the source again (the crawl deadline plus a grace to store). */
  leaseExpiresAt: string;
}

/** Where a remote record came from (CARDS.md §5: "store source URL, fetch time, ETag and digest per record"). */
export interface RemoteProvenance {
  sourceUrl: string;
  catalogUrl: string;
  documentUrl?: string;
  fetchedAt: string;
  etag?: string;
  lastModified?: string;
  /** `sha-256:<lowerhex>` of the exact bytes, as the crawler states it. */
  digest: string;
}

export interface RemoteCardObserved {
  sourceId: string;
  crawlId: string;
  /** Exactly as the source states it: never rewritten. */
  identifier: string;
  kind: CrawlRecordKind;
  type?: string;
  version?: string;
  revisionKey: string;
  digest: string;
  /** The exact bytes fetched, base64. */
  content: string;
  size: number;
  status: CrawlRecordStatus;
  provenance: RemoteProvenance;
}

export interface RemoteCardGone {
  sourceId: string;
  crawlId: string;
  identifier: string;
  goneAt: string;
}

export interface CrawlSummary {
  records: number;
  unchanged: number;
  gone: number;
  problems: number;
}

export interface SourceCrawled {
  sourceId: string;
  crawlId: string;
  finishedAt: string;
  summary: CrawlSummary;
  /** The first problems of the crawl (bounded), as the crawler reported them. */
  problems: CrawlProblem[];
  /** What the next crawl starts from (conditional GETs, the base of `gone`). */
  state: CrawlState;
}

export type SourceEvent =
  | { type: 'SourceCrawlStarted'; data: SourceCrawlStarted }
  | { type: 'RemoteCardObserved'; data: RemoteCardObserved }
  | { type: 'RemoteCardGone'; data: RemoteCardGone }
  | { type: 'SourceCrawled'; data: SourceCrawled };

/** The federation events the read model projects (the rest never reach the bus or are not its business). */
export const REMOTE_RECORD_EVENT_TYPES: ReadonlySet<string> = new Set(['RemoteCardObserved', 'RemoteCardGone', 'SourceRemoved']);
