/**
 * `GET /v1/search` (CARDS.md §5 "Search and filters", "Cursor pagination"): full text over the search
 * document of each card (registry-search.projection.ts) with filters (OR within a key, AND across), facets
 * for the filtered set, and keyset pages behind opaque cursors.
 *
 * Order: relevance (`ts_rank`, then identifier) when `q` is given, else (updatedAt desc, identifier desc);
 * both total, so a page boundary is exact and cards published between pages never shift the rest. Only
 * cards with a latest visible revision (active or deprecated) unless `status=` asks for others; renamed
 * identifiers never (they redirect). Facets come with the first page only (no cursor): every page of one
 * query has the same filtered set. They are one grouped statement over the filtered set (at most
 * `FACET_CAP` + 1 rows of it), tags and publisher domains capped to the top `FACET_TOP`.
 *
 * `searchStatements` is exported so the bench runs exactly the SQL this route runs.
 */
import type { Database } from '@trustmesh/platform-database';

import { CARD_VERIFIED_SQL, SEARCH_TEXT_CONFIG } from '../persistence/registry-search.projection';
import type { ServiceResult } from '../service/registry-service.result';
import { fail, succeed } from '../service/registry-service.result';
import { decodeCursor, encodeCursor, type CursorKey } from './search.cursor';
import type { SearchQuery } from './search.parameters';
import { revisionUrl } from './registry-urls';

export const FACET_TOP = 20;
/**
 * Facets count at most this many matching rows (plus one, to know there were more): exact up to it, lower
 * bounds beyond (`facetsCapped`). Counting a whole 100,000-card registry on every browse would make the
 * facets, not the page, the cost of a search.
 */
export const FACET_CAP = 10_000;

export interface Statement {
  sql: string;
  params: unknown[];
}

export interface SearchHit {
  identifier: string;
  namespace: string;
  kind: string;
  type: string | null;
  name: string;
  description: string;
  tags: string[];
  protocols: string[];
  publisherDomain: string;
  status: string;
  verified: boolean;
  revision: string | null;
  updatedAt: string;
  url: string | null;
  score?: number;
}

export interface FacetCount {
  value: string;
  count: number;
}

export interface SearchPage {
  items: SearchHit[];
  nextCursor: string | null;
  facets?: Record<'kind' | 'protocol' | 'tag' | 'publisherDomain' | 'status' | 'verified', FacetCount[]>;
  /** Present with the facets: true when more than FACET_CAP cards matched and the counts are lower bounds. */
  facetsCapped?: boolean;
}

interface HitRow {
  identifier: string;
  namespace: string;
  kind: string;
  content_type: string | null;
  name: string | null;
  description: string | null;
  tags: string[] | null;
  protocols: string[] | null;
  search_status: string;
  verified: boolean;
  search_revision: string | null;
  updated_at: Date | string;
  score?: number;
}

const ORDER_RECENT = 'recent';
const ORDER_RELEVANCE = 'relevance';

/** What a cursor of this query is bound to: everything but the page size and the cursor itself. */
export const searchBinding = (query: SearchQuery) =>
  JSON.stringify(['search', query.q, query.kinds, query.protocols, query.tags, query.publisherDomains, query.statuses, query.verified]);

/** The WHERE clause of the filtered set (params appended to `params`). */
function filtered(query: SearchQuery, params: unknown[]): string {
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const list = (values: readonly string[]) => `ARRAY(SELECT jsonb_array_elements_text(${add(JSON.stringify(values))}::jsonb))`;
  const where = ['c.renamed_to IS NULL', 'c.search_status IS NOT NULL'];
  where.push(query.statuses.length === 0 ? `c.search_status IN ('active', 'deprecated')` : `c.search_status = ANY(${list(query.statuses)})`);
  if (query.kinds.length > 0) where.push(`c.kind = ANY(${list(query.kinds)})`);
  if (query.protocols.length > 0) where.push(`c.protocols && ${list(query.protocols)}`);
  if (query.tags.length > 0) where.push(`c.tags && ${list(query.tags)}`);
  if (query.publisherDomains.length > 0) where.push(`c.namespace = ANY(${list(query.publisherDomains)})`);
  if (query.verified.length === 1) where.push(`${CARD_VERIFIED_SQL} = ${add(query.verified[0])}`);
  if (query.q !== null) where.push(`c.search_document @@ websearch_to_tsquery('${SEARCH_TEXT_CONFIG}', ${add(query.q)})`);
  return where.join(' AND ');
}

const COLUMNS = `c.identifier, c.namespace, c.kind, c.content_type, c.name, c.description, c.tags, c.protocols, c.search_status, ${CARD_VERIFIED_SQL} AS verified, c.search_revision, c.updated_at`;

/**
 * The statements of one page: the page itself (limit + 1 rows, to know whether another page follows) and,
 * on the first page, the facets. `after` is the decoded cursor key (already checked).
 */
export function searchStatements(query: SearchQuery, after: CursorKey | null): { page: Statement; facets: Statement | null } {
  const params: unknown[] = [];
  const where = filtered(query, params);
  const facetParams = [...params];
  let page: string;
  if (query.q === null) {
    let keyset = '';
    if (after) {
      params.push(after[0], after[1]);
      keyset = ` AND (c.updated_at, c.identifier) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
    }
    params.push(query.limit + 1);
    page = `SELECT ${COLUMNS} FROM registry_cards c WHERE ${where}${keyset} ORDER BY c.updated_at DESC, c.identifier DESC LIMIT $${params.length}`;
  } else {
    const qParam = params.length; // the text query is the last filter parameter
    let keyset = '';
    if (after) {
      params.push(after[0], after[1]);
      keyset = ` WHERE (m.score < $${params.length - 1}::float8 OR (m.score = $${params.length - 1}::float8 AND m.identifier > $${params.length}::text))`;
    }
    params.push(query.limit + 1);
    page = `SELECT * FROM (SELECT ${COLUMNS}, ts_rank(c.search_document, websearch_to_tsquery('${SEARCH_TEXT_CONFIG}', $${qParam}))::float8 AS score
      FROM registry_cards c WHERE ${where}) m${keyset} ORDER BY m.score DESC, m.identifier LIMIT $${params.length}`;
  }
  const facets =
    after === null
      ? {
          sql: `WITH f AS MATERIALIZED (SELECT c.kind, c.protocols, c.tags, c.namespace, c.search_status, ${CARD_VERIFIED_SQL} AS verified FROM registry_cards c WHERE ${where} LIMIT ${FACET_CAP + 1})
  SELECT 'total' AS facet, '' AS value, count(*)::int AS count FROM f
  UNION ALL SELECT 'kind', kind, count(*)::int FROM f GROUP BY kind
  UNION ALL SELECT 'protocol', p, count(*)::int FROM f CROSS JOIN LATERAL unnest(f.protocols) AS p GROUP BY p
  UNION ALL (SELECT 'tag', t, count(*)::int FROM f CROSS JOIN LATERAL unnest(f.tags) AS t GROUP BY t ORDER BY 3 DESC, 2 LIMIT ${FACET_TOP})
  UNION ALL (SELECT 'publisherDomain', namespace, count(*)::int FROM f GROUP BY namespace ORDER BY 3 DESC, 2 LIMIT ${FACET_TOP})
  UNION ALL SELECT 'status', search_status, count(*)::int FROM f GROUP BY search_status
  UNION ALL SELECT 'verified', verified::text, count(*)::int FROM f GROUP BY verified`,
          params: facetParams,
        }
      : null;
  return { page: { sql: page, params }, facets };
}

const FACET_NAMES = ['kind', 'protocol', 'tag', 'publisherDomain', 'status', 'verified'] as const;

export interface SearchServiceDeps {
  database: Database;
  /** The public base URL the result URLs start with. */
  baseUrl: () => string;
}

export class SearchService {
  constructor(private readonly deps: SearchServiceDeps) {}

  async search(query: SearchQuery): Promise<ServiceResult<SearchPage>> {
    const order = query.q === null ? ORDER_RECENT : ORDER_RELEVANCE;
    const binding = searchBinding(query);
    let after: CursorKey | null = null;
    if (query.cursor !== null) {
      after = decodeCursor(query.cursor, order, binding);
      const valid = after !== null && after.length === 2 && typeof after[1] === 'string' && (order === ORDER_RECENT ? typeof after[0] === 'string' && isInstant(after[0]) : typeof after[0] === 'number');
      if (!valid) return fail('invalid', 'CURSOR_INVALID', 'The cursor is damaged or belongs to another query; start again without it', '/cursor');
    }
    const statements = searchStatements(query, after);
    const run = <Row>(statement: Statement) => this.deps.database.withConnection((sql) => sql.query<Row>(statement.sql, statement.params));
    const [rows, facetRows] = await Promise.all([run<HitRow>(statements.page), statements.facets ? run<{ facet: string; value: string; count: number }>(statements.facets) : Promise.resolve(null)]);

    const more = rows.length > query.limit;
    const shown = more ? rows.slice(0, query.limit) : rows;
    const base = this.deps.baseUrl();
    const items = shown.map((row) => hit(row, base));
    const last = shown.at(-1);
    const nextCursor = more && last ? encodeCursor(order, order === ORDER_RECENT ? [isoOf(last.updated_at), last.identifier] : [Number(last.score), last.identifier], binding) : null;
    const page: SearchPage = { items, nextCursor };
    if (facetRows) {
      const facets = Object.fromEntries(FACET_NAMES.map((name) => [name, [] as FacetCount[]])) as NonNullable<SearchPage['facets']>;
      let matched = 0;
      for (const row of facetRows) {
        if (row.facet === 'total') matched = Number(row.count);
        else facets[row.facet as keyof typeof facets]?.push({ value: row.value, count: Number(row.count) });
      }
      for (const name of FACET_NAMES) facets[name].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
      page.facets = facets;
      page.facetsCapped = matched > FACET_CAP;
    }
    return succeed(page);
  }
}

/** A timestamp column as RFC 3339 UTC with milliseconds (the columns hold milliseconds: exact). */
export const isoOf = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Whether a cursor's time is one `isoOf` wrote. */
export const isInstant = (value: string) => INSTANT.test(value) && !Number.isNaN(Date.parse(value));

function hit(row: HitRow, base: string): SearchHit {
  return {
    identifier: row.identifier,
    namespace: row.namespace,
    kind: row.kind,
    type: row.content_type,
    name: row.name ?? '',
    description: row.description ?? '',
    tags: row.tags ?? [],
    protocols: row.protocols ?? [],
    publisherDomain: row.namespace,
    status: row.search_status,
    verified: row.verified,
    revision: row.search_revision,
    updatedAt: isoOf(row.updated_at),
    url: row.search_revision !== null ? revisionUrl(base, row.identifier, row.search_revision) : null,
    ...(row.score !== undefined ? { score: Number(row.score) } : {}),
  };
}
