/**
 * The search section of `npm run bench:card-registry` (tools/bench/card-registry.bench.ts runs this file in
 * a process of its own): `GET /v1/search` through the real registry process versus the SAME SQL run
 * directly on the same database (`searchStatements`, exactly what the route runs, page and facets at once
 * as the route does), interleaved rounds, one realistic query mix, the same concurrency on both paths.
 *
 * Setup: a Postgres database of its own on the test server (127.0.0.1, `TRUSTMESH_TEST_POSTGRES_URL`),
 * the registry's migrations deployed, 100,000 cards (AI Cards, A2A and MCP server.json across 500
 * namespaces, some deprecated) written as the projection writes them (card and revision rows, then the
 * projection's own search refresh), a thousand per statement: the bulk path, without the event store,
 * outbox and bus hops a search benchmark does not measure. Then one registry process starts on it.
 *
 * Prints queries/s, p50 and p99 per path, and `goal search-vs-sql: <median per-round ratio API / SQL>`
 * (goal >= 0.5). Knobs: BENCH_SEARCH_CARDS (100000), BENCH_SEARCH_CONCURRENCY (8), BENCH_SEARCH_EXPLAIN=1
 * (print each statement's plan with timings, to see which query and which part is slow).
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import { Pool } from 'pg';

import { openDatabase, type SqlExecutor } from '@trustmesh/platform-database';

import type { CardSummary } from '../../src/domain/registry-namespace.aggregate';
import { refreshSearchDocuments } from '../../src/persistence/registry-search.projection';
import { decodeCursor } from '../../src/search/search.cursor';
import { isParameterRefusal, readSearchQuery, type SearchQuery } from '../../src/search/search.parameters';
import { searchBinding, searchStatements } from '../../src/search/search.service';
import { createRegistryPlacement, startRegistryChild } from '../support/registry.child';

const CARDS = Number(process.env['BENCH_SEARCH_CARDS'] ?? 100_000);
const NAMESPACES = 500;
const SEED_BATCH = 1_000;
const SEED_WORKERS = 3;
const ROUNDS = 5;
const PER_QUERY = 12;
const CONCURRENCY = Number(process.env['BENCH_SEARCH_CONCURRENCY'] ?? 8);

/** A small deterministic generator (mulberry32): the same corpus on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SUBJECTS = ['invoice', 'payment', 'ledger', 'travel', 'hotel', 'weather', 'forecast', 'shipping', 'customs', 'payroll', 'tax', 'audit', 'contract', 'legal', 'support', 'ticket', 'recruiting', 'calendar', 'meeting', 'translation', 'medical', 'insurance', 'claims', 'inventory', 'warehouse', 'pricing', 'quote', 'energy', 'solar', 'security'];
const VERBS = ['reads', 'summarises', 'reconciles', 'books', 'tracks', 'answers questions about', 'drafts', 'checks', 'classifies', 'forecasts', 'schedules', 'translates', 'files', 'monitors', 'explains'];
const FILLER = ['daily', 'records', 'for', 'small', 'teams', 'across', 'regions', 'with', 'approvals', 'and', 'reports', 'in', 'real', 'time', 'from', 'several', 'systems', 'secure', 'fast', 'accurate'];

function cardEvent(index: number, next: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const namespace = `publisher-${index % NAMESPACES}.example`;
  const subject = pick(SUBJECTS);
  const other = pick(SUBJECTS);
  const roll = next();
  const kind = roll < 0.8 ? 'ai-card' : roll < 0.9 ? 'a2a' : 'mcp-server';
  const name = `${subject[0]?.toUpperCase()}${subject.slice(1)} ${pick(['assistant', 'agent', 'helper', 'robot', 'desk'])} ${index}`;
  const description = `${pick(VERBS)} ${subject} and ${other} ${Array.from({ length: 8 }, () => pick(FILLER)).join(' ')}`;
  const tags = [...new Set([subject, other, pick(SUBJECTS), `region-${index % 12}`])];
  const protocols = kind === 'a2a' ? ['a2a'] : kind === 'mcp-server' ? ['mcp'] : next() < 0.3 ? ['a2a', 'mcp'] : ['a2a'];
  const identifier = kind === 'mcp-server' ? `example.publisher-${index % NAMESPACES}/server-${index}` : kind === 'a2a' ? `urn:air:${namespace}:agent:agent-${index}` : `https://${namespace}/agents/agent-${index}`;
  const revision = kind === 'ai-card' ? `2026-0${1 + (index % 9)}-0${1 + (index % 9)}T10:00:00Z` : `1.${index % 7}.0`;
  const summary: CardSummary = {
    kind,
    identifier,
    ...(kind === 'ai-card' ? { updatedAt: revision } : { version: revision }),
    name,
    description,
    tags,
    skills: kind === 'mcp-server' ? [] : [`${subject} lookup`, `${other} report`],
    tools: kind === 'mcp-server' ? [`get_${subject}`, `list_${other}`] : [],
    protocols,
    ...(kind === 'ai-card' ? { publisher: { identifier: `did:web:${namespace}`, name: `Publisher ${index % NAMESPACES}` } } : {}),
  };
  const content = Buffer.from(JSON.stringify({ identifier, name, description, tags, revision }));
  return {
    namespace,
    identifier,
    kind,
    revision,
    digest: `sha256:${createHash('sha256').update(content).digest('hex')}`,
    contentType: kind === 'a2a' ? 'application/a2a-agent-card+json' : 'application/json',
    content: content.toString('base64'),
    size: content.length,
    summary,
    status: next() < 0.05 ? 'deprecated' : 'active',
    publisherId: `publisher-${index % NAMESPACES}`,
    // Spread over a month, many sharing a millisecond: the identifier tiebreak matters.
    publishedAt: new Date(Date.parse('2026-05-01T00:00:00Z') + Math.floor(index / 3) * 1000).toISOString(),
  };
}

/**
 * Writes the rows the projection writes for these publications (a card row, a revision row, then the
 * projection's own search refresh), a batch per statement: the bulk path.
 */
async function seed(url: string): Promise<number> {
  const started = performance.now();
  const database = await openDatabase({ mode: 'server', url });
  const next = random(7);
  const events = Array.from({ length: CARDS }, (_, index) => cardEvent(index, next));
  let cursor = 0;
  const worker = async () => {
    for (;;) {
      const from = cursor;
      cursor += SEED_BATCH;
      if (from >= events.length) return;
      const batch = events.slice(from, from + SEED_BATCH);
      const json = JSON.stringify(batch);
      await database.withConnection((connection) =>
        connection.transaction(async (tx: SqlExecutor) => {
          await tx.query(
            `INSERT INTO registry_cards (identifier, namespace, kind, latest_revision, updated_at)
             SELECT e->>'identifier', e->>'namespace', e->>'kind', e->>'revision', (e->>'publishedAt')::timestamptz FROM jsonb_array_elements($1::jsonb) AS e`,
            [json],
          );
          await tx.query(
            `INSERT INTO registry_card_revisions (identifier, revision, kind, digest, content_type, content, summary, status, published_at, updated_at)
             SELECT e->>'identifier', e->>'revision', e->>'kind', e->>'digest', e->>'contentType', decode(e->>'content', 'base64'), e->'summary', e->>'status',
                    (e->>'publishedAt')::timestamptz, (e->>'publishedAt')::timestamptz FROM jsonb_array_elements($1::jsonb) AS e`,
            [json],
          );
          await refreshSearchDocuments(
            tx,
            batch.map((event) => String(event['identifier'])),
          );
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: SEED_WORKERS }, worker));
  await database.withConnection((connection) => connection.exec('VACUUM ANALYZE registry_cards'));
  await database.close();
  return performance.now() - started;
}

/** The query mix: what people type and click, first pages (with facets) and next pages (without). */
const MIX = [
  'q=invoice',
  'q=reconciles%20payment',
  'q=weather%20forecast&protocol=mcp',
  'q=%22real%20time%22%20hotel',
  'q=audit&publisherDomain=publisher-42.example',
  'tag=payroll',
  'tag=tax&tag=legal&kind=ai-card',
  'protocol=mcp&tag=inventory',
  'publisherDomain=publisher-7.example&publisherDomain=publisher-8.example',
  '',
  'status=deprecated&tag=security',
  'kind=a2a&verified=false',
] as const;

interface Prepared {
  label: string;
  http: string;
  query: SearchQuery;
  after: ReturnType<typeof decodeCursor>;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const median = (values: number[]) => percentile(values, 50);

async function closedLoop(work: Array<() => Promise<void>>): Promise<{ millis: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const index = next;
        next += 1;
        const item = work[index];
        if (!item) return;
        const at = performance.now();
        await item();
        latencies.push(performance.now() - at);
      }
    }),
  );
  return { millis: performance.now() - started, latencies };
}

export async function benchSearch(): Promise<number> {
  const placement = await createRegistryPlacement(null, 'bench-search');
  const pool = new Pool({ connectionString: placement.database.url, max: CONCURRENCY });
  try {
    const seedMillis = await seed(placement.database.url);
    const registry = await startRegistryChild(placement, 'bench-search', { LOG_LEVEL: 'warn' });
    try {
      const prepared: Prepared[] = [];
      for (const parameters of MIX) {
        const first = await registry.call('GET', `/v1/search?${parameters}`);
        if (first.status !== 200) throw new Error(`search ${parameters}: ${first.status}`);
        const query = readSearchQuery(parameters);
        if (isParameterRefusal(query)) throw new Error(`bench query refused: ${query.code}`);
        prepared.push({ label: parameters || '(browse)', http: `/v1/search?${parameters}`, query, after: null });
        const cursor = first.body.nextCursor as string | null;
        if (cursor) {
          const after = decodeCursor(cursor, query.q === null ? 'recent' : 'relevance', searchBinding({ ...query, cursor: null }));
          prepared.push({ label: `${parameters || '(browse)'} page 2`, http: `/v1/search?${parameters}${parameters ? '&' : ''}cursor=${encodeURIComponent(cursor)}`, query: { ...query, cursor }, after });
        }
      }
      const viaHttp = () => prepared.flatMap((item) => Array.from({ length: PER_QUERY }, () => async () => {
        const reply = await registry.call('GET', item.http);
        if (reply.status !== 200) throw new Error(`search ${item.label}: ${reply.status}`);
      }));
      const viaSql = () => prepared.flatMap((item) => Array.from({ length: PER_QUERY }, () => async () => {
        const statements = searchStatements(item.query, item.after);
        await Promise.all([pool.query(statements.page.sql, statements.page.params), statements.facets ? pool.query(statements.facets.sql, statements.facets.params) : Promise.resolve(null)]);
      }));
      await closedLoop(viaHttp());
      await closedLoop(viaSql());
      if (process.env['BENCH_SEARCH_EXPLAIN'] === '1') {
        for (const item of prepared) {
          const statements = searchStatements(item.query, item.after);
          for (const statement of [statements.page, statements.facets]) {
            if (!statement) continue;
            const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS OFF) ${statement.sql}`, statement.params);
            console.log(`--- ${item.label}\n${plan.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n')}`);
          }
        }
      }

      const ratios: number[] = [];
      const httpRates: number[] = [];
      const sqlRates: number[] = [];
      const httpLatencies: number[] = [];
      const sqlLatencies: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        // Alternate which path goes first, so a burst of load on this shared machine hits both alike.
        const order = round % 2 === 0 ? (['http', 'sql'] as const) : (['sql', 'http'] as const);
        const result: Record<string, { millis: number; latencies: number[] }> = {};
        for (const path of order) result[path] = await closedLoop(path === 'http' ? viaHttp() : viaSql());
        const count = prepared.length * PER_QUERY;
        const http = (count / (result['http']?.millis ?? 1)) * 1000;
        const sql = (count / (result['sql']?.millis ?? 1)) * 1000;
        httpRates.push(http);
        sqlRates.push(sql);
        ratios.push(http / sql);
        httpLatencies.push(...(result['http']?.latencies ?? []));
        sqlLatencies.push(...(result['sql']?.latencies ?? []));
      }
      const fmt = (value: number) => value.toFixed(1);
      console.log(`(b) search, ${CARDS.toLocaleString('en-US')} cards written as the projection writes them in ${(seedMillis / 1000).toFixed(1)} s; ${prepared.length} queries (${MIX.length} first pages with facets, the rest next pages) x ${PER_QUERY}, ${CONCURRENCY} concurrent, ${ROUNDS} interleaved rounds:`);
      console.log(`    SQL direct (same statements, pg pool of ${CONCURRENCY}): ${fmt(median(sqlRates))} queries/s  p50 ${fmt(percentile(sqlLatencies, 50))} ms  p99 ${fmt(percentile(sqlLatencies, 99))} ms  [${sqlRates.map(fmt).join(' ')}]`);
      console.log(`    GET /v1/search (registry process, HTTP):         ${fmt(median(httpRates))} queries/s  p50 ${fmt(percentile(httpLatencies, 50))} ms  p99 ${fmt(percentile(httpLatencies, 99))} ms  [${httpRates.map(fmt).join(' ')}]`);
      console.log(`    per-round ratio API / SQL: [${ratios.map((ratio) => ratio.toFixed(2)).join(' ')}]`);
      return median(ratios);
    } finally {
      await registry.stop();
    }
  } finally {
    await pool.end();
    await placement.dispose();
  }
}

if (require.main === module) {
  benchSearch().then(
    (ratio) => console.log(`goal search-vs-sql: ${ratio.toFixed(2)}`),
    (error: unknown) => {
      console.error(`bench:card-registry search failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exitCode = 1;
    },
  );
}
