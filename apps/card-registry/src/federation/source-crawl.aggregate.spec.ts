import { claimVerdict, emptySourceCrawl, evolveSourceCrawl, type SourceCrawlState } from './source-crawl.aggregate';
import type { SourceEvent } from './federation.stream';

const at = (iso: string) => Date.parse(iso);
const started = (crawlId: string, startedAt: string, leaseExpiresAt: string): SourceEvent => ({
  type: 'SourceCrawlStarted',
  data: { sourceId: 's', crawlId, replicaId: 'registry-a', trigger: 'schedule', startedAt, leaseExpiresAt },
});
const crawled = (crawlId: string, finishedAt: string): SourceEvent => ({
  type: 'SourceCrawled',
  data: { sourceId: 's', crawlId, finishedAt, summary: { records: 1, unchanged: 0, gone: 0, problems: 0 }, problems: [], state: { documents: {}, catalogs: {}, roots: [], listed: ['urn:air:acme.example:agent:a'] } },
});
const fold = (...events: SourceEvent[]): SourceCrawlState => events.reduce((state, event) => evolveSourceCrawl(state, event), emptySourceCrawl());

describe('source crawl aggregate', () => {
  it('makes a source never crawled due at once, for the scheduler and for crawl-now', () => {
    expect(claimVerdict(emptySourceCrawl(), at('2026-12-03T08:00:00Z'), 'schedule', 3600)).toBe('claim');
    expect(claimVerdict(emptySourceCrawl(), at('2026-12-03T08:00:00Z'), 'now', 3600)).toBe('claim');
  });

  it('refuses a second claim while a crawl holds an unexpired lease, and allows one once the lease expired (a crashed replica)', () => {
    const running = fold(started('c1', '2026-12-03T08:00:00Z', '2026-12-03T08:01:30Z'));
    expect(claimVerdict(running, at('2026-12-03T08:01:00Z'), 'now', 3600)).toBe('running');
    expect(claimVerdict(running, at('2026-12-03T08:01:00Z'), 'schedule', 3600)).toBe('running');
    expect(claimVerdict(running, at('2026-12-03T08:01:31Z'), 'now', 3600)).toBe('claim');
  });

  it('keeps the last crawl and its crawler state; the scheduler waits for the interval, crawl-now does not', () => {
    const done = fold(started('c1', '2026-12-03T08:00:00Z', '2026-12-03T08:01:30Z'), crawled('c1', '2026-12-03T08:00:05Z'));
    expect(done.running).toBeNull();
    expect(done.last).toMatchObject({ crawlId: 'c1', startedAt: '2026-12-03T08:00:00Z', finishedAt: '2026-12-03T08:00:05Z', summary: { records: 1 } });
    expect(done.crawlState?.listed).toEqual(['urn:air:acme.example:agent:a']);
    expect(claimVerdict(done, at('2026-12-03T08:30:00Z'), 'schedule', 3600)).toBe('not_due');
    expect(claimVerdict(done, at('2026-12-03T09:00:05Z'), 'schedule', 3600)).toBe('claim');
    expect(claimVerdict(done, at('2026-12-03T08:30:00Z'), 'now', 3600)).toBe('claim');
  });

  it('ignores the records between a claim and its close', () => {
    const state = fold(started('c1', '2026-12-03T08:00:00Z', '2026-12-03T08:01:30Z'), {
      type: 'RemoteCardGone',
      data: { sourceId: 's', crawlId: 'c1', identifier: 'urn:air:acme.example:agent:a', goneAt: '2026-12-03T08:00:04Z' },
    });
    expect(state.running?.crawlId).toBe('c1');
    expect(state.last).toBeNull();
  });
});
