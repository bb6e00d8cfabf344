/**
 * One source's crawls (stream `registry-source-<sourceId>`, CARDS.md §5 "Federation and crawling"): who is crawling
 * it now, what the last crawl found, and the crawler state the next crawl starts from. Single flight across replicas
 * comes from the event store: a crawl is claimed by appending `SourceCrawlStarted` at the version this fold was made
 * at, so of two replicas claiming at once exactly one append succeeds; the winner stores its records and
 * `SourceCrawled` at the next expected versions, so a replica whose lease expired (and was claimed again) cannot store
 * a stale crawl either. Pure.
 */
import type { CrawlProblem, CrawlState } from '@trustmesh/cards-federation';

import type { CrawlSummary, SourceCrawlStarted, SourceEvent } from './federation.stream';

export interface LastCrawl {
  crawlId: string;
  startedAt: string;
  finishedAt: string;
  summary: CrawlSummary;
  problems: CrawlProblem[];
}

export interface SourceCrawlState {
  /** The claim of a crawl that has not stored its `SourceCrawled` yet. */
  running: SourceCrawlStarted | null;
  last: LastCrawl | null;
  /** The crawler state of the last finished crawl (undefined before the first). */
  crawlState: CrawlState | undefined;
}

export const emptySourceCrawl = (): SourceCrawlState => ({ running: null, last: null, crawlState: undefined });

export function evolveSourceCrawl(state: SourceCrawlState, event: SourceEvent): SourceCrawlState {
  switch (event.type) {
    case 'SourceCrawlStarted':
      state.running = { ...event.data };
      return state;
    case 'SourceCrawled': {
      const startedAt = state.running?.crawlId === event.data.crawlId ? state.running.startedAt : event.data.finishedAt;
      state.running = null;
      state.last = { crawlId: event.data.crawlId, startedAt, finishedAt: event.data.finishedAt, summary: event.data.summary, problems: event.data.problems };
      state.crawlState = event.data.state;
      return state;
    }
    default:
      return state;
  }
}

export type ClaimVerdict = 'claim' | 'running' | 'not_due';

/**
 * Whether a crawl may start at `nowMs`: not while another holds an unexpired claim; a scheduled one only once the
 * interval has passed since the last crawl finished (a source never crawled is due at once).
 */
export function claimVerdict(state: SourceCrawlState, nowMs: number, trigger: 'now' | 'schedule', intervalSeconds: number): ClaimVerdict {
  if (state.running && Date.parse(state.running.leaseExpiresAt) > nowMs) return 'running';
  if (trigger === 'now' || state.last === null) return 'claim';
  return Date.parse(state.last.finishedAt) + intervalSeconds * 1000 <= nowMs ? 'claim' : 'not_due';
}
