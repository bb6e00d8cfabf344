/**
 * What a crawl's report becomes in the event store (CARDS.md §5 "Federation and crawling": "store source URL, fetch
 * time, ETag and digest per record; never rewrite ids"): one `RemoteCardObserved` per record with its exact bytes
 * (base64), the source's status and provenance, and the appends those events travel in, bounded in events and bytes.
 */
import type { CrawlRecord } from '@trustmesh/cards-federation';

import type { RemoteCardObserved, SourceEvent } from './federation.stream';

/** One append of records: bounded in events and bytes (cards travel base64). */
const APPEND_EVENTS = 100;
const APPEND_BYTES = 8 * 1024 * 1024;

export function observed(sourceId: string, crawlId: string, record: CrawlRecord): RemoteCardObserved {
  const bytes = Buffer.from(record.bytes.buffer, record.bytes.byteOffset, record.bytes.byteLength);
  const p = record.provenance;
  return {
    sourceId,
    crawlId,
    identifier: record.identifier,
    kind: record.kind,
    ...(record.type !== undefined ? { type: record.type } : {}),
    ...(record.version !== undefined ? { version: record.version } : {}),
    revisionKey: record.revisionKey,
    digest: record.digest,
    content: bytes.toString('base64'),
    size: bytes.length,
    status: record.status,
    provenance: {
      sourceUrl: p.sourceUrl,
      catalogUrl: p.catalogUrl,
      ...(p.documentUrl !== undefined ? { documentUrl: p.documentUrl } : {}),
      fetchedAt: p.fetchedAt,
      ...(p.etag !== undefined ? { etag: p.etag } : {}),
      ...(p.lastModified !== undefined ? { lastModified: p.lastModified } : {}),
      digest: p.digest,
    },
  };
}

/** Splits the events of one crawl into appends of at most APPEND_EVENTS events and about APPEND_BYTES. */
export function* batches(events: readonly SourceEvent[]): Generator<SourceEvent[]> {
  let batch: SourceEvent[] = [];
  let bytes = 0;
  for (const event of events) {
    const size = event.type === 'RemoteCardObserved' ? event.data.content.length : 256;
    if (batch.length > 0 && (batch.length >= APPEND_EVENTS || bytes + size > APPEND_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(event);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
