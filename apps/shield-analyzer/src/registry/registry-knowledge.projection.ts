/**
 * The Shield's projection of `registry.cards.v1` (issue 12): what the card registry knows of cards and
 * namespaces, kept in the analyzer's own tables (../../prisma/schema.prisma, `shield_registry_*`) so a consult
 * reads it without calling the registry. Its own checkpoint (`shield-registry-knowledge`), apart from the case
 * read model: a registry outage or a rebuild never holds the cases back.
 *
 * Each event is applied once, in the runner's transaction with the checkpoint; every write is an upsert whose
 * result depends only on the event and the row (a publication already folded is kept, a flag already present
 * is not added again), so replaying the log from the start rebuilds the same rows. Card rows are folded in
 * TypeScript (registry-knowledge.fold.ts) and written back; namespace rows by single statements. Events no
 * consumer of cards folds (catalog publishes, federation records, credentials) are skipped.
 */
import { REGISTRY_CARDS_TOPIC, registryCardEventOf, type PublisherRegistered, type RegistryCardEvent } from '@trustmesh/cards-registry-events';
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { EventEnvelope } from '@trustmesh/platform-events';
import type { ProjectionDefinition } from '@trustmesh/platform-projections';

import { cardOfEvent, currentEndpoints, flagLookalikes, foldCard, isCardEvent, type CardFacts, type NamespaceFacts } from './registry-knowledge.fold';

export const SHIELD_REGISTRY_PROJECTION = 'shield-registry-knowledge';
const MAX_DISPLAY_NAME = 200;

/** jsonb comes back parsed from both drivers (text only from one told not to parse it). */
const parsed = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

async function applyCardEvent(tx: SqlExecutor, event: Parameters<typeof foldCard>[1], envelope: EventEnvelope): Promise<void> {
  const identifier = cardOfEvent(event);
  const [row] = await tx.query<{ facts: CardFacts | string }>('SELECT facts FROM shield_registry_cards WHERE identifier = $1', [identifier]);
  const card = foldCard(row ? parsed(row.facts) : null, event, envelope.streamVersion);
  if (!card) return;
  await tx.query(
    `INSERT INTO shield_registry_cards (identifier, namespace, facts, endpoints, updated_at)
     VALUES ($1, $2, $3::jsonb, ARRAY(SELECT jsonb_array_elements_text($4::jsonb)), $5::timestamptz)
     ON CONFLICT (identifier) DO UPDATE SET facts = EXCLUDED.facts, endpoints = EXCLUDED.endpoints, updated_at = EXCLUDED.updated_at`,
    [card.identifier, card.namespace, JSON.stringify(card), JSON.stringify(currentEndpoints(card)), envelope.occurredAt],
  );
}

async function lookalikes(tx: SqlExecutor, namespace: string): Promise<NamespaceFacts['lookalikeOf']> {
  const [row] = await tx.query<{ lookalike_of: NamespaceFacts['lookalikeOf'] | string }>('SELECT lookalike_of FROM shield_registry_namespaces WHERE namespace = $1', [namespace]);
  return row ? parsed(row.lookalike_of) : [];
}

/** Inserts the namespace's row when it has none yet, then applies `update` (`$1` the namespace, `$2` the event time). */
async function updateNamespace(tx: SqlExecutor, namespace: string, at: string, update: string, params: readonly unknown[] = []): Promise<void> {
  await tx.query(`INSERT INTO shield_registry_namespaces (namespace, updated_at) VALUES ($1, $2::timestamptz) ON CONFLICT (namespace) DO NOTHING`, [namespace, at]);
  await tx.query(`UPDATE shield_registry_namespaces SET ${update}, updated_at = $2::timestamptz WHERE namespace = $1`, [namespace, at, ...params]);
}

async function applyNamespaceEvent(tx: SqlExecutor, event: Exclude<RegistryCardEvent, Parameters<typeof foldCard>[1]>, at: string): Promise<void> {
  switch (event.type) {
    case 'NamespaceGranted':
      return updateNamespace(tx, event.data.namespace, at, 'publisher_id = $3', [event.data.publisherId]);
    case 'NamespaceVerified': {
      const { namespace, publisherId, method, verifiedAt, expiresAt } = event.data;
      // An older proof event carries no expiry: it records the holding only.
      if (expiresAt === undefined) return updateNamespace(tx, namespace, at, 'publisher_id = $3', [publisherId]);
      const proof = { publisherId, method, verifiedAt, expiresAt, lapsedAt: null };
      return updateNamespace(tx, namespace, at, 'publisher_id = $3, proof = $4::jsonb', [publisherId, JSON.stringify(proof)]);
    }
    case 'NamespaceTransferred':
      return updateNamespace(tx, event.data.namespace, at, 'publisher_id = $3', [event.data.toPublisherId]);
    case 'NamespaceProofLapsed':
      return updateNamespace(tx, event.data.namespace, at, `proof = CASE WHEN proof IS NULL THEN NULL ELSE jsonb_set(proof, '{lapsedAt}', to_jsonb($3::text)) END`, [event.data.lapsedAt]);
    case 'NamespaceLookalikeFlagged': {
      const merged = flagLookalikes(await lookalikes(tx, event.data.namespace), event.data.lookalikeOf);
      return updateNamespace(tx, event.data.namespace, at, 'lookalike_of = $3::jsonb', [JSON.stringify(merged)]);
    }
    case 'NamespaceLookalikeCleared': {
      const kept = (await lookalikes(tx, event.data.namespace)).filter((flag) => flag.namespace !== event.data.lookalikeOf);
      return updateNamespace(tx, event.data.namespace, at, 'lookalike_of = $3::jsonb', [JSON.stringify(kept)]);
    }
    case 'NamespaceSignaturePolicySet':
      return;
  }
}

async function applyEnvelope(tx: SqlExecutor, envelope: EventEnvelope): Promise<void> {
  if (envelope.eventType === 'PublisherRegistered') {
    const data = envelope.data as PublisherRegistered;
    await tx.query(
      `INSERT INTO shield_registry_publishers (publisher_id, display_name) VALUES ($1, $2)
       ON CONFLICT (publisher_id) DO UPDATE SET display_name = EXCLUDED.display_name`,
      [data.publisherId, data.displayName.slice(0, MAX_DISPLAY_NAME)],
    );
    return;
  }
  const event = registryCardEventOf(envelope.eventType, envelope.data);
  if (!event) return;
  if (isCardEvent(event)) return applyCardEvent(tx, event, envelope);
  return applyNamespaceEvent(tx, event, envelope.occurredAt);
}

export function shieldRegistryProjection(): ProjectionDefinition<SqlExecutor> {
  return {
    name: SHIELD_REGISTRY_PROJECTION,
    version: 1,
    topics: [REGISTRY_CARDS_TOPIC],
    apply: (envelope, { tx }) => applyEnvelope(tx, envelope),
  };
}
