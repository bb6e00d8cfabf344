/**
 * The search document of one card (CARDS.md §5 "Search and filters"), kept on its `registry_cards` row by
 * the read-model projection after every change of the card: the current revision (the latest visible one,
 * else the newest published, so a card whose revisions are all yanked stays findable with `status=yanked`),
 * the status search sees (`deleted` for a tombstone), the content type, name, description, lower-cased
 * tags, normalised protocols and a weighted `tsvector` over name (A), tags and skills (B), tools (C) and
 * description (D). One statement, the same SQL on Postgres and PGlite.
 *
 * Protocols are normalised so a filter on `mcp` finds MCP server.json documents, MCP Server Cards and AI
 * Cards with an `mcp` service alike (§4.2: variant spellings defeat exact-match filters).
 */
import type { SqlExecutor } from '@trustmesh/platform-database';

/**
 * Whether the card (row alias `c`) is verified, as the single-card read computes it (README, "Ownership,
 * look-alikes and signatures"): its latest revision's signature verified, by `did:web:{namespace}`, while the
 * namespace's proof stands for its holder. Computed at read time: a proof expires without an event.
 * Uncorrelated, so Postgres builds the verified set once per statement (a hashed subplan), not once per row.
 */
export const CARD_VERIFIED_SQL = `c.identifier IN (SELECT vs.identifier FROM registry_revision_signatures vs
    JOIN registry_cards vc ON vc.identifier = vs.identifier AND vc.latest_revision = vs.revision
    JOIN registry_namespaces vn ON vn.namespace = vc.namespace
    JOIN registry_namespace_trust vt ON vt.namespace = vn.namespace AND vt.publisher_id = vn.publisher_id AND vt.method IS NOT NULL AND vt.lapsed_at IS NULL AND vt.expires_at > now()
    WHERE vs.verified AND vs.signer = 'did:web:' || vc.namespace)`;

/** The text-search configuration of documents and queries (stemming for English descriptions). */
export const SEARCH_TEXT_CONFIG = 'english';

/** How a protocol name is normalised, in SQL over `p` (a lower-cased protocol string). */
const NORMALISED_PROTOCOL = `CASE WHEN p IN ('mcp', 'mcp-server', 'mcp-server-card', 'application/mcp-server+json', 'application/mcp-server-card+json') THEN 'mcp'
  WHEN p IN ('a2a', 'application/a2a-agent-card+json') THEN 'a2a' ELSE p END`;

const strings = (path: string) => `COALESCE((SELECT string_agg(value, ' ') FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(r.summary->'${path}') = 'array' THEN r.summary->'${path}' ELSE '[]'::jsonb END)), '')`;

/**
 * The current revision of each card of `$1` is looked up per card (a LATERAL subquery on the revisions'
 * primary key; its `LIMIT 1`, a no-op on a key, keeps the planner from flattening it into a join). As a plain
 * join the planner hash-joined the whole revisions table on every call (the COALESCE with its subquery is no
 * join key, and PGlite never gathers the statistics that show the key selective), so each refresh cost grew
 * with the registry: 20 ms per card at 2,000 revisions, against 0.3 ms now at any size.
 */
const REFRESH_SQL = `
WITH current AS (
  SELECT t.identifier, r.revision, r.status, r.content_type, r.summary
    FROM registry_cards t
    CROSS JOIN LATERAL (
      SELECT cur.revision, cur.status, cur.content_type, cur.summary FROM registry_card_revisions cur
       WHERE cur.identifier = t.identifier
         AND cur.revision = COALESCE(t.latest_revision, (SELECT newest.revision FROM registry_card_revisions newest WHERE newest.identifier = t.identifier ORDER BY newest.published_at DESC, newest.revision DESC LIMIT 1))
       LIMIT 1
    ) r
   WHERE t.identifier = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
)
UPDATE registry_cards c SET
  search_revision = r.revision,
  search_status = CASE WHEN c.status = 'deleted' THEN 'deleted' ELSE r.status END,
  content_type = r.content_type,
  name = COALESCE(r.summary->>'name', ''),
  description = COALESCE(r.summary->>'description', ''),
  tags = ARRAY(SELECT DISTINCT lower(t) FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(r.summary->'tags') = 'array' THEN r.summary->'tags' ELSE '[]'::jsonb END) AS t ORDER BY 1),
  protocols = ARRAY(SELECT DISTINCT ${NORMALISED_PROTOCOL} FROM (SELECT lower(x) AS p FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(r.summary->'protocols') = 'array' THEN r.summary->'protocols' ELSE '[]'::jsonb END) AS x) AS ps ORDER BY 1),
  search_document =
    setweight(to_tsvector('${SEARCH_TEXT_CONFIG}', COALESCE(r.summary->>'name', '')), 'A') ||
    setweight(to_tsvector('${SEARCH_TEXT_CONFIG}', ${strings('tags')} || ' ' || ${strings('skills')}), 'B') ||
    setweight(to_tsvector('${SEARCH_TEXT_CONFIG}', ${strings('tools')}), 'C') ||
    setweight(to_tsvector('${SEARCH_TEXT_CONFIG}', COALESCE(r.summary->>'description', '')), 'D')
FROM current r
WHERE c.identifier = r.identifier`;

/** Recomputes the search columns of the cards `identifiers` from their revision rows (after `latest_revision` was set), in one statement. */
export async function refreshSearchDocuments(tx: SqlExecutor, identifiers: readonly string[]): Promise<void> {
  if (identifiers.length > 0) await tx.query(REFRESH_SQL, [JSON.stringify(identifiers)]);
}
