/**
 * Search, sync and served catalogs through the real HTTP API of one registry on embedded PGlite (CARDS.md
 * §5 "Search and filters", "Cursor pagination", "Incremental sync"; §2.1/§2.3 catalogs): full text,
 * filters (OR within a key, AND across), facets, the `mcp` alias, lifecycle states hidden or asked for,
 * 10,000 cards paged completely while other cards are published between pages, cursor tampering, limit
 * bounds, the change feed with tombstones, and both catalog forms with ETag / 304.
 */
import { validateDocument } from '@trustmesh/cards-documents';

import { onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath, mcpServer } from './support/registry-clients';
import { executorQuery, seedDocuments, waitForProjection } from './support/registry-seed';

const PUBLIC_URL = 'https://registry.example.test';
const BULK = 10_000;

/** An AI Card of `domain` named by `slug`, with an MCP or A2A service and the given text. */
function card(domain: string, slug: string, text: { name: string; description: string; tags: string[]; protocol?: 'a2a' | 'mcp'; updatedAt?: string; maturity?: string }): Record<string, unknown> {
  const protocol = text.protocol ?? 'a2a';
  return aiCard(domain, {
    id: `https://${domain}/agents/${slug}`,
    name: text.name,
    description: text.description,
    tags: text.tags,
    ...(text.updatedAt ? { updatedAt: text.updatedAt } : {}),
    ...(text.maturity ? { maturity: text.maturity } : {}),
    services: { [protocol]: { type: protocol, name: `${text.name} over ${protocol}`, protocolSpecific: { url: `https://${domain}/${protocol}` } } },
  });
}

describe('card registry: search, sync and catalogs', () => {
  let app: RegistryApp;
  let acme: string;
  let globex: string;
  let bulk: string;
  const publish = async (token: string, document: unknown, query = '') => {
    const reply = await app.call('POST', `/v1/cards${query}`, { token, raw: bytesOf(document) });
    if (reply.status !== 201) throw new Error(`publish: ${reply.status} ${reply.bytes.toString()}`);
    return reply.body as { identifier: string; revision: string };
  };
  const search = (query: string) => app.call('GET', `/v1/search?${query}`);
  const query = () => executorQuery((work) => app.handle.infrastructure.database.withConnection(work));
  /** Waits until the read model shows `identifier` with `status` as search sees it. */
  const projected = async (identifier: string, status: string | null) => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const rows = await app.handle.infrastructure.database.withConnection((sql) => sql.query<{ search_status: string | null; renamed_to: string | null }>('SELECT search_status, renamed_to FROM registry_cards WHERE identifier = $1', [identifier]));
      const row = rows[0];
      if (row && (status === 'renamed' ? row.renamed_to !== null : row.search_status === status)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${identifier} never reached ${status}`);
  };

  beforeAll(async () => {
    app = await startRegistryApp({ REGISTRY_PUBLIC_URL: `${PUBLIC_URL}/` });
    acme = await onboard(app.call, 'acme', ['acme.example']);
    globex = await onboard(app.call, 'globex', ['globex.example']);
    bulk = await onboard(app.call, 'bulk', ['bulk.example']);

    await publish(acme, card('acme.example', 'invoices', { name: 'Invoice helper', description: 'Answers questions about invoices and payment dates', tags: ['Finance', 'invoices'] }));
    await publish(acme, card('acme.example', 'ledger-agent', { name: 'Ledger reader', description: 'Reads the general ledger for auditors', tags: ['finance', 'audit'], protocol: 'mcp' }));
    await publish(acme, card('acme.example', 'weather', { name: 'Weather oracle', description: 'Forecasts rain and sunshine', tags: ['weather'] }));
    await publish(acme, card('acme.example', 'legacy', { name: 'Legacy invoices', description: 'The old invoice robot', tags: ['finance'], maturity: 'deprecated' }));
    await publish(acme, card('acme.example', 'yanked', { name: 'Yanked invoices', description: 'Invoices, withdrawn', tags: ['finance'] }));
    await publish(acme, card('acme.example', 'deleted', { name: 'Deleted invoices', description: 'Invoices, removed', tags: ['finance'] }));
    await publish(acme, card('acme.example', 'renamed', { name: 'Renamed invoices', description: 'Invoices under an old name', tags: ['finance'] }));
    await publish(acme, mcpServer('acme.example', '1.0.0', { description: 'Reads the ledger over MCP' }));
    const agent = { name: 'Quotes', description: 'Prices invoices and orders', url: 'https://globex.example/a2a', version: '1.0.0', protocolVersion: '0.3.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: 'quote', name: 'Quote an order', description: 'Quotes a price', tags: ['pricing'] }] };
    await publish(globex, agent, `?identifier=${encodeURIComponent('urn:air:globex.example:agent:quotes')}`);

    expect((await app.call('POST', cardPath('https://acme.example/agents/yanked', '/status'), { token: acme, json: { status: 'yanked' } })).status).toBe(200);
    expect((await app.call('POST', cardPath('https://acme.example/agents/deleted', '/status'), { token: acme, json: { status: 'deleted', message: 'Retired' } })).status).toBe(200);
    expect((await app.call('POST', cardPath('https://acme.example/agents/renamed', '/rename'), { token: acme, json: { to: 'https://acme.example/agents/renamed-new' } })).status).toBe(200);
    await projected('https://acme.example/agents/yanked', 'yanked');
    await projected('https://acme.example/agents/deleted', 'deleted');
    await projected('https://acme.example/agents/renamed', 'renamed');
    await projected('urn:air:globex.example:agent:quotes', 'active');
  }, 120_000);
  afterAll(() => app?.close());

  const identifiersOf = (reply: { body: { items: Array<{ identifier: string }> } }) => reply.body.items.map((item) => item.identifier);

  describe('search', () => {
    it('finds cards by words of their name, description, tags and skills, most relevant first, and hides yanked, deleted and renamed ones', async () => {
      const reply = await search('q=invoices');
      expect(reply.status).toBe(200);
      const found = identifiersOf(reply);
      expect(found[0]).toBe('https://acme.example/agents/invoices');
      expect(found).toEqual(expect.arrayContaining(['https://acme.example/agents/legacy', 'urn:air:globex.example:agent:quotes']));
      expect(found).not.toEqual(expect.arrayContaining(['https://acme.example/agents/yanked']));
      expect(found.some((identifier) => /yanked|deleted|renamed/.test(identifier))).toBe(false);
      expect(reply.body.items[0]).toMatchObject({
        identifier: 'https://acme.example/agents/invoices',
        kind: 'ai-card',
        type: 'application/json',
        name: 'Invoice helper',
        tags: ['finance', 'invoices'],
        protocols: ['a2a'],
        publisherDomain: 'acme.example',
        status: 'active',
        verified: false,
        revision: '2026-02-01T10:00:00Z',
        url: `${PUBLIC_URL}/v1/cards/${encodeURIComponent('https://acme.example/agents/invoices')}/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`,
      });
      expect(identifiersOf(await search('q=quote'))).toEqual(['urn:air:globex.example:agent:quotes']);
      expect(identifiersOf(await search('q=forecast'))).toEqual(['https://acme.example/agents/weather']);
      expect(identifiersOf(await search('q=nonexistentword'))).toEqual([]);
    });

    it('filters OR within a key and AND across keys, with the mcp alias covering server.json and MCP services', async () => {
      const mcp = identifiersOf(await search('protocol=mcp&publisherDomain=acme.example'));
      expect(mcp.sort()).toEqual(['example.acme/ledger', 'https://acme.example/agents/ledger-agent']);
      const either = identifiersOf(await search('tag=weather&tag=audit'));
      expect(either.sort()).toEqual(['https://acme.example/agents/ledger-agent', 'https://acme.example/agents/weather']);
      const both = identifiersOf(await search('tag=finance&protocol=mcp'));
      expect(both).toEqual(['https://acme.example/agents/ledger-agent']);
      expect(identifiersOf(await search('kind=mcp'))).toEqual(['example.acme/ledger']);
      expect(identifiersOf(await search('kind=a2a'))).toEqual(['urn:air:globex.example:agent:quotes']);
      expect(identifiersOf(await search('publisherDomain=GLOBEX.example'))).toEqual(['urn:air:globex.example:agent:quotes']);
      expect(identifiersOf(await search('status=deprecated'))).toEqual(['https://acme.example/agents/legacy']);
      expect(identifiersOf(await search('status=yanked'))).toEqual(['https://acme.example/agents/yanked']);
      expect(identifiersOf(await search('status=deleted&publisherDomain=acme.example'))).toEqual(['https://acme.example/agents/deleted']);
      expect(identifiersOf(await search('verified=true'))).toEqual([]);
      expect(identifiersOf(await search('verified=false&publisherDomain=globex.example'))).toEqual(['urn:air:globex.example:agent:quotes']);
    });

    it('reads verified from the trust read model: a standing proof of the holder and a verified signature of the latest revision', async () => {
      const quotes = 'urn:air:globex.example:agent:quotes';
      const sql = (text: string, params: unknown[]) => app.handle.infrastructure.database.withConnection((connection) => connection.query(text, params));
      // The rows the trust projection writes for a proved namespace and a verified signature (its own suites cover how).
      await sql(`INSERT INTO registry_namespace_trust (namespace, publisher_id, method, verified_at, expires_at, updated_at) VALUES ('globex.example', 'globex', 'dns-txt', now(), now() + interval '1 day', now())`, []);
      await sql(`INSERT INTO registry_revision_signatures (identifier, revision, namespace, verified, signer, checked_at) VALUES ($1, '1.0.0', 'globex.example', true, 'did:web:globex.example', now())`, [quotes]);
      try {
        const verified = await search('verified=true');
        expect(identifiersOf(verified)).toEqual([quotes]);
        expect(verified.body.items[0].verified).toBe(true);
        expect((await search('q=quote')).body.facets.verified).toEqual([{ value: 'true', count: 1 }]);
        // A lapsed proof drops it, as on the single-card read.
        await sql(`UPDATE registry_namespace_trust SET lapsed_at = now() WHERE namespace = 'globex.example'`, []);
        expect(identifiersOf(await search('verified=true'))).toEqual([]);
      } finally {
        await sql(`DELETE FROM registry_revision_signatures WHERE identifier = $1`, [quotes]);
        await sql(`DELETE FROM registry_namespace_trust WHERE namespace = 'globex.example'`, []);
      }
    });

    it('counts facets over the filtered set on the first page', async () => {
      const reply = await search('tag=finance');
      expect(reply.body.facetsCapped).toBe(false);
      expect(reply.body.facets).toEqual({
        kind: [{ value: 'ai-card', count: 3 }],
        protocol: [
          { value: 'a2a', count: 2 },
          { value: 'mcp', count: 1 },
        ],
        tag: [
          { value: 'finance', count: 3 },
          { value: 'audit', count: 1 },
          { value: 'invoices', count: 1 },
        ],
        publisherDomain: [{ value: 'acme.example', count: 3 }],
        status: [
          { value: 'active', count: 2 },
          { value: 'deprecated', count: 1 },
        ],
        verified: [{ value: 'false', count: 3 }],
      });
      const second = await search(`tag=finance&limit=1&cursor=${encodeURIComponent((await search('tag=finance&limit=1')).body.nextCursor)}`);
      expect(second.status).toBe(200);
      expect(second.body.facets).toBeUndefined();
    });

    it('refuses bad parameters, out-of-range limits and tampered or foreign cursors with 400 and a stable code', async () => {
      const first = await search('tag=finance&limit=1');
      const cursor: string = first.body.nextCursor;
      expect(typeof cursor).toBe('string');
      const [payload = '', check = ''] = cursor.split('.');
      const flipped = `${payload.slice(0, -2)}${payload.at(-2) === 'A' ? 'B' : 'A'}${payload.at(-1)}.${check}`;
      const forged = `${Buffer.from(JSON.stringify({ o: 'recent', k: ['2020-01-01T00:00:00.000Z', 'x'] })).toString('base64url')}.${check}`;
      const cases: Array<[string, number, string]> = [
        [`tag=finance&cursor=${encodeURIComponent(flipped)}`, 400, 'CURSOR_INVALID'],
        [`tag=finance&cursor=${encodeURIComponent(forged)}`, 400, 'CURSOR_INVALID'],
        [`tag=audit&cursor=${encodeURIComponent(cursor)}`, 400, 'CURSOR_INVALID'],
        [`q=finance&tag=finance&cursor=${encodeURIComponent(cursor)}`, 400, 'CURSOR_INVALID'],
        ['cursor=42', 400, 'CURSOR_INVALID'],
        ['limit=0', 400, 'LIMIT_INVALID'],
        ['limit=101', 400, 'LIMIT_INVALID'],
        ['limit=ten', 400, 'LIMIT_INVALID'],
        ['limit=1&limit=2', 400, 'PARAMETER_REPEATED'],
        ['offset=20', 400, 'PARAMETER_UNKNOWN'],
        ['status=archived', 400, 'PARAMETER_INVALID'],
        ['kind=openapi', 400, 'PARAMETER_INVALID'],
        ['verified=maybe', 400, 'PARAMETER_INVALID'],
        [`q=${'x'.repeat(257)}`, 400, 'QUERY_TOO_LONG'],
        [`tag=${'x'.repeat(254)}`, 400, 'PARAMETER_TOO_LONG'],
        [Array.from({ length: 21 }, (_, index) => `tag=t${index}`).join('&'), 400, 'PARAMETER_TOO_MANY_VALUES'],
      ];
      for (const [parameters, status, code] of cases) {
        const reply = await search(parameters);
        expect({ parameters: parameters.slice(0, 60), status: reply.status, code: reply.body?.code }).toEqual({ parameters: parameters.slice(0, 60), status, code });
        expect(reply.body).toMatchObject({ type: `urn:trustmesh:registry:problem:${code}`, issues: [expect.objectContaining({ code })] });
      }
      expect((await search('limit=100&publisherDomain=acme.example')).status).toBe(200);
      const page = await search('publisherDomain=acme.example');
      expect(page.body.items.length).toBeLessThanOrEqual(20);
    });
  });

  describe('10,000 cards', () => {
    beforeAll(async () => {
      const documents = Array.from({ length: BULK }, (_, index) =>
        bytesOf(card('bulk.example', `agent-${String(index).padStart(5, '0')}`, { name: `Bulk agent ${index}`, description: index % 2 === 0 ? 'Reconciles bank statements' : 'Reconciles bank statements and invoices', tags: [`group-${index % 7}`, 'bulk'] })),
      );
      await seedDocuments({ store: app.handle.infrastructure.store, kick: () => app.handle.infrastructure.publisher.kick() }, 'bulk.example', 'bulk', documents, Date.parse('2026-06-01T00:00:00Z'));
      // About 10 s on an idle machine (the projection writes each run of publications set-based); generous for a busy CI.
      await waitForProjection(query(), 'bulk.example', BULK, 600_000);
    }, 660_000);

    /** Pages through `parameters` to the end, publishing `perPage` new cards between pages; every identifier seen, in order. */
    async function pageAll(parameters: string, label: string, perPage: number): Promise<string[]> {
      const seen: string[] = [];
      let cursor: string | null = null;
      let fresh = 0;
      do {
        const reply = await search(`${parameters}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(reply.status).toBe(200);
        seen.push(...identifiersOf(reply));
        cursor = reply.body.nextCursor;
        // One after another: concurrent publishes into one namespace race on its stream (and the loser re-reads it).
        for (let index = 0; index < perPage; index += 1) {
          fresh += 1;
          await publish(bulk, card('bulk.example', `${label}-${fresh}`, { name: `Fresh agent ${fresh}`, description: 'Reconciles bank statements', tags: ['bulk'] }));
        }
      } while (cursor !== null);
      return seen;
    }

    it('pages through every card exactly once by recency while new cards are published between pages', async () => {
      const seen = await pageAll('publisherDomain=bulk.example&tag=bulk', 'recent', 2);
      const bulkSeen = seen.filter((identifier) => /agent-\d{5}$/.test(identifier));
      expect(new Set(bulkSeen).size).toBe(BULK);
      expect(bulkSeen.length).toBe(BULK);
      expect(new Set(seen).size).toBe(seen.length);
    }, 180_000);

    it('pages through every match exactly once by relevance, ties broken by identifier', async () => {
      const seen = await pageAll('q=reconciles%20bank&publisherDomain=bulk.example', 'relevant', 1);
      const bulkSeen = seen.filter((identifier) => /agent-\d{5}$/.test(identifier));
      expect(new Set(bulkSeen).size).toBe(BULK);
      expect(bulkSeen.length).toBe(BULK);
      expect(new Set(seen).size).toBe(seen.length);
    }, 180_000);

    it('counts the whole filtered set in the facets, with the tag facet capped', async () => {
      const reply = await search('publisherDomain=bulk.example&tag=group-3');
      expect(reply.body.facets.tag).toEqual([
        { value: 'bulk', count: 1429 },
        { value: 'group-3', count: 1429 },
      ]);
      expect(reply.body.facetsCapped).toBe(false);
      const all = await search('publisherDomain=bulk.example&q=invoices');
      expect(all.body.facets.kind).toEqual([{ value: 'ai-card', count: BULK / 2 }]);
      expect(all.body.facets.tag.length).toBeLessThanOrEqual(20);
    });

    it('caps the facets past 10,000 matches and says so', async () => {
      await publish(bulk, card('bulk.example', 'one-more', { name: 'One more', description: 'Past the facet cap', tags: ['bulk'] }));
      await projected('https://bulk.example/agents/one-more', 'active');
      const reply = await search('publisherDomain=bulk.example');
      expect(reply.body.facetsCapped).toBe(true);
      expect(reply.body.facets.publisherDomain).toEqual([{ value: 'bulk.example', count: 10_001 }]);
      expect(reply.body.items).toHaveLength(20);
    });
  });

  describe('changes', () => {
    it('lists every change in (updatedAt, identifier) order with tombstones, and picks up later changes from updatedSince', async () => {
      const all: Array<{ identifier: string; updatedAt: string; status: string; deleted?: boolean; revisions?: Array<{ status: string }> }> = [];
      let cursor: string | null = null;
      do {
        const reply = await app.call('GET', `/v1/changes?includeDeleted=true&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(reply.status).toBe(200);
        all.push(...reply.body.changes);
        cursor = reply.body.nextCursor;
      } while (cursor !== null);
      const keys = all.map((change) => `${change.updatedAt} ${change.identifier}`);
      expect(keys).toEqual([...keys].sort());
      expect(new Set(all.map((change) => change.identifier)).size).toBe(all.length);
      expect(all.find((change) => change.identifier === 'https://acme.example/agents/deleted')).toMatchObject({ status: 'deleted', deleted: true, statusMessage: 'Retired' });
      expect(all.find((change) => change.identifier === 'https://acme.example/agents/yanked')).toMatchObject({ status: 'yanked', revisions: [{ status: 'yanked' }] });
      expect(all.find((change) => change.identifier === 'https://acme.example/agents/renamed')).toMatchObject({ renamedTo: 'https://acme.example/agents/renamed-new' });

      const withoutDeleted = await app.call('GET', '/v1/changes?limit=100');
      expect(withoutDeleted.body.changes.some((change: { status: string }) => change.status === 'deleted')).toBe(false);

      const newest = all.at(-1)?.updatedAt ?? '';
      const mark = new Date(Date.parse(newest) + 1).toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const weatherId = 'https://acme.example/agents/weather';
      expect((await app.call('POST', cardPath(weatherId, '/status'), { token: acme, json: { status: 'yanked', message: 'Broken forecasts' } })).status).toBe(200);
      await projected(weatherId, 'yanked');
      const since = await app.call('GET', `/v1/changes?updatedSince=${encodeURIComponent(mark)}`);
      expect(since.status).toBe(200);
      expect(since.body.changes).toEqual([
        expect.objectContaining({ identifier: weatherId, status: 'yanked', revisions: [expect.objectContaining({ revision: '2026-02-01T10:00:00Z', status: 'yanked', statusMessage: 'Broken forecasts' })] }),
      ]);
      expect((await app.call('POST', cardPath(weatherId, '/status'), { token: acme, json: { status: 'deleted' } })).status).toBe(200);
      await projected(weatherId, 'deleted');
      const tombstone = await app.call('GET', `/v1/changes?updatedSince=${encodeURIComponent(mark)}`);
      expect(tombstone.body.changes).toEqual([{ identifier: weatherId, namespace: 'acme.example', kind: 'ai-card', status: 'deleted', deleted: true, updatedAt: expect.any(String) }]);
    });

    it('refuses a bad updatedSince, a contradiction, and tampered cursors', async () => {
      const cases: Array<[string, string]> = [
        ['updatedSince=2026-03-01', 'PARAMETER_INVALID'],
        ['updatedSince=yesterday', 'PARAMETER_INVALID'],
        ['updatedSince=2026-03-01T00:00:00Z&includeDeleted=false', 'PARAMETER_CONFLICT'],
        ['includeDeleted=maybe', 'PARAMETER_INVALID'],
        ['limit=101', 'LIMIT_INVALID'],
        ['cursor=abc.def', 'CURSOR_INVALID'],
      ];
      for (const [parameters, code] of cases) {
        const reply = await app.call('GET', `/v1/changes?${parameters}`);
        expect({ parameters, status: reply.status, code: reply.body?.code }).toEqual({ parameters, status: 400, code });
      }
      const first = await app.call('GET', '/v1/changes?limit=1');
      const other = await app.call('GET', `/v1/changes?includeDeleted=true&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      expect(other.body.code).toBe('CURSOR_INVALID');
    });
  });

  describe('catalogs', () => {
    it('serves the final catalog of a namespace with visible cards only, valid, pointing at the revision routes, with ETag and 304', async () => {
      const path = '/namespaces/acme.example/.well-known/ai-catalog.json';
      const reply = await app.call('GET', path);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe('application/ai-catalog+json');
      const validation = validateDocument(reply.bytes, { kind: 'ai-catalog' });
      expect(validation.errors).toEqual([]);
      const entries = reply.body.entries as Array<{ identifier: string; type: string; url: string; version: string; updatedAt: string; publisher: unknown }>;
      expect(entries.map((entry) => entry.identifier)).toEqual(['example.acme/ledger', 'https://acme.example/agents/invoices', 'https://acme.example/agents/ledger-agent', 'https://acme.example/agents/legacy']);
      expect(reply.body).toMatchObject({ specVersion: '1.0', host: { displayName: 'Publisher acme', identifier: 'acme.example' } });
      expect(entries[1]).toEqual({
        identifier: 'https://acme.example/agents/invoices',
        type: 'application/json',
        url: `${PUBLIC_URL}/v1/cards/${encodeURIComponent('https://acme.example/agents/invoices')}/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`,
        version: '2026-02-01T10:00:00Z',
        updatedAt: '2026-02-01T10:00:00Z',
        tags: ['finance', 'invoices'],
        publisher: { identifier: 'did:web:acme.example', displayName: 'Acme Ltd' },
      });
      expect(entries[0]).toMatchObject({ version: '1.0.0', publisher: { identifier: 'acme.example', displayName: 'Publisher acme', identityType: 'dns' } });
      // The entry's url serves the exact bytes on the registry (the public URL's path is the registry's own).
      const served = await app.call('GET', entries[1]?.url.slice(PUBLIC_URL.length) ?? '');
      expect(served.status).toBe(200);

      const etag = reply.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"sha256:[0-9a-f]{64}"$/);
      expect((await app.call('GET', path, { headers: { 'if-none-match': etag } })).status).toBe(304);
      expect((await app.call('GET', path, { headers: { 'if-none-match': `"other", W/${etag}` } })).status).toBe(304);

      await publish(acme, card('acme.example', 'fresh-in-catalog', { name: 'Fresh', description: 'New in the catalog', tags: [] }));
      await projected('https://acme.example/agents/fresh-in-catalog', 'active');
      const changed = await app.call('GET', path, { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.body.entries.map((entry: { identifier: string }) => entry.identifier)).toContain('https://acme.example/agents/fresh-in-catalog');
    });

    it('serves the seed form on ?form=seed with the AI Cards only', async () => {
      const reply = await app.call('GET', '/namespaces/acme.example/.well-known/ai-catalog.json?form=seed');
      expect(reply.status).toBe(200);
      expect(validateDocument(reply.bytes, { kind: 'ai-catalog' }).errors).toEqual([]);
      expect(reply.body.host).toEqual({ name: 'Publisher acme' });
      const cards = reply.body.aiCards as Array<{ id: string; name: string; cardUrl: string; updatedAt: string }>;
      expect(cards.map((entry) => entry.id)).not.toContain('example.acme/ledger');
      expect(cards.find((entry) => entry.id === 'https://acme.example/agents/invoices')).toMatchObject({ name: 'Invoice helper', description: 'Answers questions about invoices and payment dates', updatedAt: '2026-02-01T10:00:00Z' });
      const etag = reply.headers.get('etag') ?? '';
      expect((await app.call('GET', '/namespaces/acme.example/.well-known/ai-catalog.json?form=seed', { headers: { 'if-none-match': etag } })).status).toBe(304);
    });

    it('answers an unknown namespace with 404 and bad input with 400', async () => {
      const cases: Array<[string, number, string]> = [
        ['/namespaces/unknown.example/.well-known/ai-catalog.json', 404, 'NAMESPACE_NOT_FOUND'],
        ['/namespaces/not_a_domain/.well-known/ai-catalog.json', 400, 'NAMESPACE_INVALID'],
        ['/namespaces/acme.example/.well-known/ai-catalog.json?form=draft', 400, 'PARAMETER_INVALID'],
        ['/namespaces/acme.example/.well-known/ai-catalog.json?page=2', 400, 'PARAMETER_UNKNOWN'],
      ];
      for (const [path, status, code] of cases) {
        const reply = await app.call('GET', path);
        expect({ path, status: reply.status, code: reply.body?.code }).toEqual({ path, status, code });
      }
    });
  });
});
