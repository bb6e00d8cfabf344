/**
 * Loads and appends the federation streams (federation.stream.ts): the source list and one stream per source. Like
 * the namespace repository, a load reads only the events after the version this process last folded (so it sees
 * what other replicas appended), and an append expects that version: a `ConcurrencyError` reaches the caller, which
 * decides what losing means (the source list: decide again; a crawl claim: another replica is crawling).
 */
import type { EventStore, OutboxPublisher } from '@trustmesh/platform-event-store';

import type { SourceEvent, SourceListEvent } from './federation.stream';
import { FEDERATION_SOURCES_STREAM, sourceStreamId } from './federation.stream';
import { emptySourceCrawl, evolveSourceCrawl, type SourceCrawlState } from './source-crawl.aggregate';
import { emptySourceList, evolveSourceList, type SourceListState } from './source-list.aggregate';

export interface Folded<S> {
  state: S;
  version: number;
}

/** Source streams kept folded in memory, least recently used dropped first. */
const CACHED_SOURCES = 1024;

export class FederationRepository {
  private sources: Folded<SourceListState> | undefined;
  private readonly crawls = new Map<string, Folded<SourceCrawlState>>();

  constructor(
    private readonly store: EventStore,
    private readonly publisher: OutboxPublisher,
  ) {}

  async loadSources(): Promise<Folded<SourceListState>> {
    const known = this.sources;
    const recorded = await this.store.readStream(FEDERATION_SOURCES_STREAM, { fromVersion: (known?.version ?? 0) + 1 });
    if (known && recorded.length === 0) return known;
    // Fold on a copy: a cached state is shared by concurrent calls.
    const state = known ? { sources: new Map(known.state.sources) } : emptySourceList();
    for (const { envelope } of recorded) evolveSourceList(state, { type: envelope.eventType, data: envelope.data } as SourceListEvent);
    this.sources = { state, version: (known?.version ?? 0) + recorded.length };
    return this.sources;
  }

  /** Appends to the source list at `version` (published: the read model retires a removed source's records). */
  async appendSources(version: number, events: readonly SourceListEvent[]): Promise<void> {
    await this.store.append(FEDERATION_SOURCES_STREAM, version === 0 ? 'no-stream' : version, events.map((event) => ({ eventType: event.type, data: event.data })));
    this.sources = undefined;
    this.publisher.kick();
  }

  async loadSource(sourceId: string): Promise<Folded<SourceCrawlState>> {
    const known = this.crawls.get(sourceId);
    const recorded = await this.store.readStream(sourceStreamId(sourceId), { fromVersion: (known?.version ?? 0) + 1 });
    if (known && recorded.length === 0) return known;
    const state: SourceCrawlState = known ? { ...known.state } : emptySourceCrawl();
    for (const { envelope } of recorded) evolveSourceCrawl(state, { type: envelope.eventType, data: envelope.data } as SourceEvent);
    const folded = { state, version: (known?.version ?? 0) + recorded.length };
    this.remember(sourceId, folded);
    return folded;
  }

  /**
   * Appends to a source's stream at `version` and returns the new version. Every event is published: the projection
   * checks each stream's versions arrive without gaps, so a stream is on the bus whole or not at all.
   */
  async appendSource(sourceId: string, version: number, events: readonly SourceEvent[]): Promise<number> {
    const result = await this.store.append(
      sourceStreamId(sourceId),
      version === 0 ? 'no-stream' : version,
      events.map((event) => ({ eventType: event.type, data: event.data })),
    );
    this.publisher.kick();
    // The next load folds from the cached version: it reads what was just appended, in order.
    return result.streamVersion;
  }

  private remember(sourceId: string, folded: Folded<SourceCrawlState>): void {
    this.crawls.delete(sourceId);
    this.crawls.set(sourceId, folded);
    if (this.crawls.size > CACHED_SOURCES) {
      const oldest = this.crawls.keys().next().value;
      if (oldest !== undefined) this.crawls.delete(oldest);
    }
  }
}
