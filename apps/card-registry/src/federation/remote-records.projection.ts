/**
 * The remote part of the registry's read model (table `registry_remote_cards`, CARDS.md §5 "Federation and
 * crawling"): what sources said, apart from local cards, so a remote record can never replace or collide with a
 * local one. One row per (source, identifier as the source states it, revision key) with its exact bytes and
 * provenance; a record the source stopped listing, or every record of a removed source, becomes a tombstone
 * (`status = 'deleted'`, `gone_at`). Called from the registry's read-model projection, in its transaction.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { EventEnvelope } from '@trustmesh/platform-events';

import type { RemoteCardGone, RemoteCardObserved, SourceRemoved } from './federation.stream';

export async function applyRemoteRecordEvent(tx: SqlExecutor, envelope: EventEnvelope): Promise<void> {
  switch (envelope.eventType) {
    case 'RemoteCardObserved': {
      const data = envelope.data as RemoteCardObserved;
      const p = data.provenance;
      // A source may serve new bytes under the same revision key: the row mirrors what the source serves now.
      await tx.query(
        `INSERT INTO registry_remote_cards (source_id, identifier, revision_key, kind, type, version, digest, content, size, status, source_url, catalog_url, document_url, fetched_at, etag, last_modified, crawl_id, gone_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, decode($8, 'base64'), $9, $10, $11, $12, $13, $14::timestamptz, $15, $16, $17, NULL, $14::timestamptz)
         ON CONFLICT (source_id, identifier, revision_key) DO UPDATE SET kind = EXCLUDED.kind, type = EXCLUDED.type, version = EXCLUDED.version, digest = EXCLUDED.digest,
           content = EXCLUDED.content, size = EXCLUDED.size, status = EXCLUDED.status, source_url = EXCLUDED.source_url, catalog_url = EXCLUDED.catalog_url,
           document_url = EXCLUDED.document_url, fetched_at = EXCLUDED.fetched_at, etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,
           crawl_id = EXCLUDED.crawl_id, gone_at = NULL, updated_at = EXCLUDED.updated_at`,
        [
          data.sourceId,
          data.identifier,
          data.revisionKey,
          data.kind,
          data.type ?? null,
          data.version ?? null,
          data.digest,
          data.content,
          data.size,
          data.status,
          p.sourceUrl,
          p.catalogUrl,
          p.documentUrl ?? null,
          p.fetchedAt,
          p.etag ?? null,
          p.lastModified ?? null,
          data.crawlId,
        ],
      );
      return;
    }
    case 'RemoteCardGone': {
      const data = envelope.data as RemoteCardGone;
      await tx.query(`UPDATE registry_remote_cards SET status = 'deleted', gone_at = $3::timestamptz, updated_at = $3::timestamptz WHERE source_id = $1 AND identifier = $2 AND status <> 'deleted'`, [
        data.sourceId,
        data.identifier,
        data.goneAt,
      ]);
      return;
    }
    case 'SourceRemoved': {
      const data = envelope.data as SourceRemoved;
      await tx.query(`UPDATE registry_remote_cards SET status = 'deleted', gone_at = $2::timestamptz, updated_at = $2::timestamptz WHERE source_id = $1 AND status <> 'deleted'`, [data.sourceId, data.removedAt]);
      return;
    }
  }
}
