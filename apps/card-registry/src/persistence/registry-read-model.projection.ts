/**
 * The registry's read models, projected from `registry.cards.v1` (schema: ../../prisma/schema.prisma):
 * publishers, namespaces with their holder, cards (kind, whole-card status, rename target, latest
 * revision) and revisions (exact bytes, digest, summary, status); the trust tables (proofs, policies,
 * look-alike flags, signature outcomes) through ../trust/trust-read-model.projection.ts. The runner applies each event once, in
 * one transaction with its checkpoint; inserts skip a row already there, so a replay rebuilds the same rows.
 * These tables are what search, catalogs and sync read; single-card reads fold the namespace stream
 * (read-your-writes).
 *
 * SQL on the platform database (`sqlTransactions`), as the Shield's projection, with values as bind
 * parameters and bytes travelling as base64 (decoded by Postgres, so both drivers store the same bytea).
 */
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { EventEnvelope } from '@trustmesh/platform-events';
import type { ProjectionDefinition } from '@trustmesh/platform-projections';

import { latestRevision, type CardStatus } from '../domain/card-revision';
import { applyTrustReadModel } from '../trust/trust-read-model.projection';
import { fromStored, NAMESPACE_EVENT_TYPES, REGISTRY_CARDS_TOPIC, type PublisherRegistered } from './registry.stream';
import { refreshSearchDocument } from './registry-search.projection';

export const REGISTRY_READ_MODEL_PROJECTION = 'registry-read-model';

interface RevisionRow {
  revision: string;
  status: CardStatus;
  kind: string;
  updated_at_doc: string | null;
}

/** Recomputes the card's latest visible revision from its revision rows (oldest published first). */
async function refreshLatest(tx: SqlExecutor, identifier: string, at: string): Promise<void> {
  const rows = await tx.query<RevisionRow>(
    `SELECT revision, status, kind, summary->>'updatedAt' AS updated_at_doc FROM registry_card_revisions WHERE identifier = $1 ORDER BY published_at, revision`,
    [identifier],
  );
  const latest = latestRevision(
    rows.map((row, index) => {
      const ms = row.kind === 'ai-card' && row.updated_at_doc ? Date.parse(row.updated_at_doc) : Number.NaN;
      return { revision: row.revision, status: row.status, publishedVersion: index, ...(Number.isNaN(ms) ? {} : { updatedAtMs: ms }) };
    }),
  );
  await tx.query('UPDATE registry_cards SET latest_revision = $2, updated_at = $3::timestamptz WHERE identifier = $1', [identifier, latest?.revision ?? null, at]);
  await refreshSearchDocument(tx, identifier);
}

export function registryReadModelProjection(): ProjectionDefinition<SqlExecutor> {
  return {
    name: REGISTRY_READ_MODEL_PROJECTION,
    version: 1,
    topics: [REGISTRY_CARDS_TOPIC],
    async apply(envelope: EventEnvelope, { tx }) {
      if (envelope.eventType === 'PublisherRegistered') {
        const data = envelope.data as PublisherRegistered;
        await tx.query('INSERT INTO registry_publishers (publisher_id, display_name, registered_at) VALUES ($1, $2, $3::timestamptz) ON CONFLICT DO NOTHING', [data.publisherId, data.displayName, data.registeredAt]);
        return;
      }
      if (!NAMESPACE_EVENT_TYPES.has(envelope.eventType)) return;
      const event = fromStored(envelope.eventType, envelope.data);
      await applyTrustReadModel(tx, event);
      switch (event.type) {
        case 'NamespaceGranted':
        case 'NamespaceVerified': {
          const at = event.type === 'NamespaceGranted' ? event.data.grantedAt : event.data.verifiedAt;
          await tx.query(
            `INSERT INTO registry_namespaces (namespace, publisher_id, granted_at, updated_at) VALUES ($1, $2, $3::timestamptz, $3::timestamptz)
             ON CONFLICT (namespace) DO UPDATE SET publisher_id = EXCLUDED.publisher_id, updated_at = EXCLUDED.updated_at`,
            [event.data.namespace, event.data.publisherId, at],
          );
          return;
        }
        case 'NamespaceTransferred':
          await tx.query('UPDATE registry_namespaces SET publisher_id = $2, updated_at = $3::timestamptz WHERE namespace = $1', [event.data.namespace, event.data.toPublisherId, event.data.transferredAt]);
          return;
        case 'CardRevisionPublished': {
          const data = event.data;
          await tx.query(
            `INSERT INTO registry_cards (identifier, namespace, kind, updated_at) VALUES ($1, $2, $3, $4::timestamptz) ON CONFLICT (identifier) DO NOTHING`,
            [data.identifier, data.namespace, data.kind, data.publishedAt],
          );
          await tx.query(
            `INSERT INTO registry_card_revisions (identifier, revision, kind, digest, content_type, content, summary, status, published_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, decode($6, 'base64'), $7::jsonb, $8, $9::timestamptz, $9::timestamptz)
             ON CONFLICT (identifier, revision) DO NOTHING`,
            [data.identifier, data.revision, data.kind, data.digest, data.contentType, data.content, JSON.stringify(data.summary), data.status, data.publishedAt],
          );
          await refreshLatest(tx, data.identifier, data.publishedAt);
          return;
        }
        case 'CardStatusChanged': {
          const data = event.data;
          const message = data.message ?? null;
          if (data.revision === null) {
            await tx.query(`UPDATE registry_card_revisions SET status = $2, status_message = $3, updated_at = $4::timestamptz WHERE identifier = $1 AND status <> 'deleted'`, [data.identifier, data.status, message, data.changedAt]);
            await tx.query('UPDATE registry_cards SET status = $2, status_message = $3 WHERE identifier = $1', [data.identifier, data.status, message]);
          } else {
            await tx.query(`UPDATE registry_card_revisions SET status = $3, status_message = $4, updated_at = $5::timestamptz WHERE identifier = $1 AND revision = $2 AND status <> 'deleted'`, [
              data.identifier,
              data.revision,
              data.status,
              message,
              data.changedAt,
            ]);
          }
          await refreshLatest(tx, data.identifier, data.changedAt);
          return;
        }
        case 'CardRenamed':
          await tx.query('UPDATE registry_cards SET renamed_to = $2, updated_at = $3::timestamptz WHERE identifier = $1', [event.data.from, event.data.to, event.data.renamedAt]);
          return;
      }
    },
  };
}
