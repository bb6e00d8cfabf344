/**
 * The registry's read models, projected from `registry.cards.v1` (schema: ../../prisma/schema.prisma):
 * publishers, namespaces with their holder, cards (kind, whole-card status, rename target, latest
 * revision) and revisions (exact bytes, digest, summary, status); the trust tables (proofs, policies,
 * look-alike flags, signature outcomes) through ../trust/trust-read-model.projection.ts. The runner applies each event once, in
 * one transaction with its checkpoint; inserts skip a row already there, so a replay rebuilds the same rows.
 * These tables are what search, catalogs and sync read; single-card reads fold the namespace stream
 * (read-your-writes).
 *
 * Card publications are applied set-based: a run of events (`applyRun`: a rebuild, a mirror catching up, a
 * bulk publish) writes its consecutive publications with a few statements for the lot (cards, revisions,
 * signatures, latest revisions, search documents) instead of five per event, and one event alone takes the
 * same path with a lot of one. The rows are those that applying the events one by one writes: the first
 * card and revision row of a key wins (as `ON CONFLICT DO NOTHING` one by one), the last signature outcome
 * wins (as `DO UPDATE`), and each card's latest revision and `updated_at` are computed once from all its
 * revision rows with the time of its last event, which is where one-by-one application ends. Every other
 * event is applied on its own, in order: a run is cut into lots at each of them.
 *
 * SQL on the platform database (`sqlTransactions`), as the Shield's projection, with values as bind
 * parameters and bytes travelling as base64 (decoded by Postgres, so both drivers store the same bytea).
 */
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { EventEnvelope } from '@trustmesh/platform-events';
import type { ProjectionDefinition } from '@trustmesh/platform-projections';

import { latestRevision, type CardStatus } from '@trustmesh/cards-registry-events';
import type { NamespaceEvent } from '../domain/registry-namespace.aggregate';
import { REMOTE_RECORD_EVENT_TYPES } from '../federation/federation.stream';
import { applyRemoteRecordEvent } from '../federation/remote-records.projection';
import { applyTrustReadModel, recordPublishedSignatures } from '../trust/trust-read-model.projection';
import { fromStored, NAMESPACE_EVENT_TYPES, REGISTRY_CARDS_TOPIC, type PublisherRegistered } from './registry.stream';
import { refreshSearchDocuments } from './registry-search.projection';

export const REGISTRY_READ_MODEL_PROJECTION = 'registry-read-model';

type CardRevisionPublished = Extract<NamespaceEvent, { type: 'CardRevisionPublished' }>['data'];

interface RevisionRow {
  identifier: string;
  revision: string;
  status: CardStatus;
  kind: string;
  updated_at_doc: string | null;
}

/** Bytes of card content (base64) sent in one statement at most: a lot of large cards goes in several. */
const CONTENT_PER_STATEMENT = 4 * 1024 * 1024;

/**
 * Recomputes the latest visible revision of each card of `touched` (identifier -> the time of its last event)
 * from its revision rows (oldest published first), then its search document.
 */
async function refreshLatest(tx: SqlExecutor, touched: ReadonlyMap<string, string>): Promise<void> {
  if (touched.size === 0) return;
  const identifiers = JSON.stringify([...touched.keys()]);
  const rows = await tx.query<RevisionRow>(
    `SELECT identifier, revision, status, kind, summary->>'updatedAt' AS updated_at_doc FROM registry_card_revisions
      WHERE identifier = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb))) ORDER BY identifier, published_at, revision`,
    [identifiers],
  );
  const byCard = new Map<string, RevisionRow[]>();
  for (const row of rows) {
    const revisions = byCard.get(row.identifier);
    if (revisions) revisions.push(row);
    else byCard.set(row.identifier, [row]);
  }
  const updates = [...touched].map(([identifier, at]) => {
    const latest = latestRevision(
      (byCard.get(identifier) ?? []).map((row, index) => {
        const ms = row.kind === 'ai-card' && row.updated_at_doc ? Date.parse(row.updated_at_doc) : Number.NaN;
        return { revision: row.revision, status: row.status, publishedVersion: index, ...(Number.isNaN(ms) ? {} : { updatedAtMs: ms }) };
      }),
    );
    return { identifier, latest: latest?.revision ?? null, at };
  });
  await tx.query(
    `UPDATE registry_cards c SET latest_revision = u.latest, updated_at = u.at
       FROM json_to_recordset($1::json) AS u(identifier text, latest text, at timestamptz) WHERE c.identifier = u.identifier`,
    [JSON.stringify(updates)],
  );
  await refreshSearchDocuments(tx, [...touched.keys()]);
}

/** The first of each key, in order (what `ON CONFLICT DO NOTHING` keeps when rows are inserted one by one). */
function firstByKey<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}

/** Consecutive items whose content adds up to at most `CONTENT_PER_STATEMENT` (an item larger alone is a chunk of its own). */
function chunksByContent<T extends { content: string }>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let size = 0;
  for (const item of items) {
    if (chunk.length > 0 && size + item.content.length > CONTENT_PER_STATEMENT) {
      chunks.push(chunk);
      chunk = [];
      size = 0;
    }
    chunk.push(item);
    size += item.content.length;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** Consecutive card publications, in order: their signatures, card and revision rows, latest revisions and search documents. */
async function applyPublications(tx: SqlExecutor, publications: readonly CardRevisionPublished[]): Promise<void> {
  if (publications.length === 0) return;
  await recordPublishedSignatures(tx, publications);
  const cards = firstByKey(publications, (data) => data.identifier).map((data) => ({ identifier: data.identifier, namespace: data.namespace, kind: data.kind, at: data.publishedAt }));
  await tx.query(
    `INSERT INTO registry_cards (identifier, namespace, kind, updated_at)
     SELECT identifier, namespace, kind, at FROM json_to_recordset($1::json) AS x(identifier text, namespace text, kind text, at timestamptz)
     ON CONFLICT (identifier) DO NOTHING`,
    [JSON.stringify(cards)],
  );
  const revisions = firstByKey(publications, (data) => JSON.stringify([data.identifier, data.revision]));
  for (const chunk of chunksByContent(revisions)) {
    const rows = chunk.map((data) => ({
      identifier: data.identifier,
      revision: data.revision,
      kind: data.kind,
      digest: data.digest,
      content_type: data.contentType,
      content: data.content,
      summary: data.summary,
      status: data.status,
      at: data.publishedAt,
    }));
    await tx.query(
      `INSERT INTO registry_card_revisions (identifier, revision, kind, digest, content_type, content, summary, status, published_at, updated_at)
       SELECT identifier, revision, kind, digest, content_type, decode(content, 'base64'), summary, status, at, at
         FROM json_to_recordset($1::json) AS x(identifier text, revision text, kind text, digest text, content_type text, content text, summary jsonb, status text, at timestamptz)
       ON CONFLICT (identifier, revision) DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
  // Each card's last event sets its time (a Map keeps the first insertion's place and the last value).
  await refreshLatest(tx, new Map(publications.map((data) => [data.identifier, data.publishedAt])));
}

/** One event that is not a card publication (those go in lots, `applyPublications`). */
async function applyEvent(tx: SqlExecutor, envelope: EventEnvelope): Promise<void> {
  if (envelope.eventType === 'PublisherRegistered') {
    const data = envelope.data as PublisherRegistered;
    await tx.query('INSERT INTO registry_publishers (publisher_id, display_name, registered_at) VALUES ($1, $2, $3::timestamptz) ON CONFLICT DO NOTHING', [data.publisherId, data.displayName, data.registeredAt]);
    return;
  }
  // Remote records live in a table of their own (federation/remote-records.projection.ts).
  if (REMOTE_RECORD_EVENT_TYPES.has(envelope.eventType)) return applyRemoteRecordEvent(tx, envelope);
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
      await refreshLatest(tx, new Map([[data.identifier, data.changedAt]]));
      return;
    }
    case 'CardRenamed':
      await tx.query('UPDATE registry_cards SET renamed_to = $2, updated_at = $3::timestamptz WHERE identifier = $1', [event.data.from, event.data.to, event.data.renamedAt]);
      return;
  }
}

/** Applies `envelopes` in order: consecutive card publications as one lot, every other event on its own. */
async function applyEvents(tx: SqlExecutor, envelopes: readonly EventEnvelope[]): Promise<void> {
  let lot: CardRevisionPublished[] = [];
  for (const envelope of envelopes) {
    if (envelope.eventType === 'CardRevisionPublished') {
      lot.push(envelope.data as CardRevisionPublished);
      continue;
    }
    await applyPublications(tx, lot);
    lot = [];
    await applyEvent(tx, envelope);
  }
  await applyPublications(tx, lot);
}

export function registryReadModelProjection(): ProjectionDefinition<SqlExecutor> {
  return {
    name: REGISTRY_READ_MODEL_PROJECTION,
    version: 1,
    topics: [REGISTRY_CARDS_TOPIC],
    apply: (envelope, { tx }) => applyEvents(tx, [envelope]),
    applyRun: (envelopes, { tx }) => applyEvents(tx, envelopes),
  };
}
