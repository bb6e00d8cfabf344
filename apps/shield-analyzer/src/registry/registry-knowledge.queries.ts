/**
 * The registry knowledge a consult reads (issue 12): the card or namespace a counterparty reference names,
 * from the `shield_registry_*` tables (registry-knowledge.projection.ts). The match is exact
 * (`registryReferenceKeys`): the reference as a card identifier, else as one of a card's current endpoints,
 * else the namespace it names or belongs to. The registry is public: these rows serve every operator account
 * alike, and no account's cases are read here. It is part of the one statement of
 * `counterpartyKnowledge` (shield-counterparty.queries.ts), through `registryKnowledgeCtes`.
 */
import type { RegistryKnowledge } from '@trustmesh/shield-records';

import { registryKnowledgeOf, type CardFacts, type NamespaceFacts } from './registry-knowledge.fold';

/** The row of the `knowledge` expression. */
export interface KnowledgeRow {
  matched_by: RegistryKnowledge['matchedBy'];
  namespace: string;
  card: CardFacts | string | null;
  publisher_id: string | null;
  proof: NamespaceFacts['proof'] | string | null;
  lookalike_of: NamespaceFacts['lookalikeOf'] | string | null;
  display_name: string | null;
}

const parsed = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/**
 * Common table expressions ending in `knowledge`: at most one `KnowledgeRow`, for the reference's keys in
 * parameters `$exact` and `$namespace` (`registryReferenceKeys`; both null: no row). The card matched first
 * (by identifier, then endpoint), else the namespace; then its namespace's row.
 */
export function registryKnowledgeCtes(exact: number, namespace: number): string {
  return `card AS (
         SELECT matched_by, namespace, facts FROM (
           (SELECT 0 AS rank, 'identifier' AS matched_by, namespace, facts FROM shield_registry_cards WHERE identifier = $${exact}::text)
           UNION ALL
           (SELECT 1, 'endpoint', namespace, facts FROM shield_registry_cards WHERE endpoints @> ARRAY[$${exact}::text] ORDER BY identifier LIMIT 1)
         ) matches ORDER BY rank LIMIT 1
       ), target AS (
         SELECT matched_by, namespace, facts FROM card
         UNION ALL
         SELECT 'namespace', $${namespace}::text, NULL::jsonb WHERE $${namespace}::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM card)
       ), knowledge AS (
         SELECT t.matched_by, t.namespace, t.facts AS card, n.publisher_id, n.proof, n.lookalike_of, p.display_name
           FROM target t
           LEFT JOIN shield_registry_namespaces n ON n.namespace = t.namespace
           LEFT JOIN shield_registry_publishers p ON p.publisher_id = n.publisher_id
          WHERE t.facts IS NOT NULL OR n.namespace IS NOT NULL
       )`;
}

/** What a `knowledge` row says at `now`. */
export function knowledgeOfRow(row: KnowledgeRow, now: Date): RegistryKnowledge | undefined {
  const facts: NamespaceFacts | null =
    row.lookalike_of === null ? null : { namespace: row.namespace, publisherId: row.publisher_id, proof: row.proof === null ? null : parsed(row.proof), lookalikeOf: parsed(row.lookalike_of) };
  return registryKnowledgeOf({ matchedBy: row.matched_by, namespace: row.namespace, facts, publisherName: row.display_name, card: row.card === null ? null : parsed(row.card) }, now);
}
