/**
 * The registry's Prometheus counters (text format 0.0.4), served on the operator port only: requests by
 * route template and status, and what the namespace cache did. Labels are route templates and statuses:
 * never identifiers or content.
 */
import type { NamespaceCacheCounters } from '../service/namespace.repository';

export interface NamespaceCacheSource {
  readonly size: number;
  readonly counters: NamespaceCacheCounters;
}

export class RegistryMetrics {
  private readonly requests = new Map<string, number>();
  private namespaceCache: NamespaceCacheSource | undefined;

  /** Reports the namespace repository's cache (entries held, hits, misses, events folded, conflicts, evictions). */
  observeNamespaceCache(source: NamespaceCacheSource): void {
    this.namespaceCache = source;
  }

  request(method: string, route: string, status: number): void {
    const key = `method="${method}",route="${route}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  text(): string {
    const lines = ['# HELP registry_http_requests_total HTTP requests answered.', '# TYPE registry_http_requests_total counter'];
    for (const [labels, value] of this.requests) lines.push(`registry_http_requests_total{${labels}} ${value}`);
    const cache = this.namespaceCache;
    if (cache) {
      lines.push('# HELP registry_namespace_cache_entries Namespaces held folded in memory.', '# TYPE registry_namespace_cache_entries gauge', `registry_namespace_cache_entries ${cache.size}`);
      const counters: Array<[string, number, string]> = [
        ['hits', cache.counters.hits, 'Loads that found the namespace folded.'],
        ['misses', cache.counters.misses, 'Loads that folded the namespace from its first event.'],
        ['events_folded', cache.counters.eventsFolded, 'Events folded into cached namespaces.'],
        ['conflicts', cache.counters.conflicts, 'Appends that lost a race and caught up to decide again.'],
        ['evictions', cache.counters.evictions, 'Namespaces dropped to stay within REGISTRY_NAMESPACE_CACHE_ENTRIES.'],
      ];
      for (const [name, value, help] of counters) lines.push(`# HELP registry_namespace_cache_${name}_total ${help}`, `# TYPE registry_namespace_cache_${name}_total counter`, `registry_namespace_cache_${name}_total ${value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
