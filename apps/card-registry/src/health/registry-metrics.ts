/**
 * The registry's own metric families on its prom-client registry (served on the operator port only, next to
 * the default process metrics and the backbone's lags): requests by route template and status, and what the
 * namespace cache did (read from the cache's counters when scraped), and card revisions published (the console's
 * publishes-per-second chart). Labels are route templates and
 * statuses: never identifiers or content.
 */
import { collectedCounter, collectedGauge } from '@trustmesh/platform-metrics';
import { Counter, type Registry } from 'prom-client';

import type { NamespaceCacheCounters } from '../service/namespace.repository';

export interface NamespaceCacheSource {
  readonly size: number;
  readonly counters: NamespaceCacheCounters;
}

const CACHE_COUNTERS: ReadonlyArray<[name: string, read: (counters: NamespaceCacheCounters) => number, help: string]> = [
  ['hits', (counters) => counters.hits, 'Loads that found the namespace folded.'],
  ['misses', (counters) => counters.misses, 'Loads that folded the namespace from its first event.'],
  ['events_folded', (counters) => counters.eventsFolded, 'Events folded into cached namespaces.'],
  ['conflicts', (counters) => counters.conflicts, 'Appends that lost a race and caught up to decide again.'],
  ['evictions', (counters) => counters.evictions, 'Namespaces dropped to stay within REGISTRY_NAMESPACE_CACHE_ENTRIES.'],
];

export class RegistryMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly published: Counter<'kind'>;

  constructor(private readonly registry: Registry) {
    this.requests = new Counter({ name: 'registry_http_requests_total', help: 'HTTP requests answered.', labelNames: ['method', 'route', 'status'], registers: [registry] });
    this.published = new Counter({ name: 'registry_card_revisions_published_total', help: 'Card revisions stored by a publish (REST or gRPC), by kind.', labelNames: ['kind'], registers: [registry] });
  }

  /** A card publish stored a revision of `kind` (ai-card, a2a, mcp-server). */
  revisionPublished(kind: string): void {
    this.published.inc({ kind });
  }

  /** Reports the namespace repository's cache (entries held, hits, misses, events folded, conflicts, evictions). */
  observeNamespaceCache(cache: NamespaceCacheSource): void {
    collectedGauge(this.registry, { name: 'registry_namespace_cache_entries', help: 'Namespaces held folded in memory.', collect: () => [{ value: cache.size }] });
    for (const [name, read, help] of CACHE_COUNTERS) {
      collectedCounter(this.registry, { name: `registry_namespace_cache_${name}_total`, help, collect: () => [{ value: read(cache.counters) }] });
    }
  }

  request(method: string, route: string, status: number): void {
    this.requests.inc({ method, route, status: String(status) });
  }
}
