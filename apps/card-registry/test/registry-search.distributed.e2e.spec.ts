/**
 * Search, sync and catalogs on the distributed tier: one registry process on a Postgres database of the
 * test's own, its events carried by Kafka (librdkafka's mock cluster) to the projection, configured by
 * environment only. Cards are published over HTTP by several clients at once (one namespace each, as
 * separate publishers would), then found with filters and facets, paged completely while more are
 * published, followed through the change feed to a tombstone, and listed in the namespace's catalog
 * with ETag / 304: the same SQL as on PGlite, on a real Postgres.
 */
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { onboard } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath } from './support/registry-clients';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';

const kafka = useKafkaCluster();
const DOMAINS = ['north.example', 'south.example', 'east.example'] as const;
const PER_DOMAIN = 40;

const cardOf = (domain: string, index: number) =>
  bytesOf(
    aiCard(domain, {
      id: `https://${domain}/agents/agent-${String(index).padStart(3, '0')}`,
      name: `Agent ${index} of ${domain}`,
      description: index % 2 === 0 ? 'Books travel and hotels' : 'Books travel and tracks expenses',
      tags: ['travel', `shard-${index % 4}`],
    }),
  );

describe('card registry search on Postgres with Kafka', () => {
  let placement: RegistryPlacement;
  let registry: RegistryChild;
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    placement = await createRegistryPlacement(kafka.brokers, 'registry-search');
    registry = await startRegistryChild(placement, 'search-a', { REGISTRY_PUBLIC_URL: 'https://registry.example.test' });
    for (const domain of DOMAINS) tokens.set(domain, await onboard(registry.call, domain.split('.')[0] ?? domain, [domain]));
    await Promise.all(
      DOMAINS.map(async (domain) => {
        for (let index = 0; index < PER_DOMAIN; index += 1) {
          const reply = await registry.call('POST', '/v1/cards', { token: tokens.get(domain) ?? '', raw: cardOf(domain, index) });
          if (reply.status !== 201) throw new Error(`publish ${domain} ${index}: ${reply.status}`);
        }
      }),
    );
    await waitUntil(async () => (await registry.call('GET', '/v1/search?tag=travel&limit=1')).body?.facets?.kind?.[0]?.count === DOMAINS.length * PER_DOMAIN, { timeoutMs: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await registry?.stop();
    await placement?.dispose();
  });

  it('finds cards with text, filters and facets', async () => {
    const reply = await registry.call('GET', '/v1/search?q=expenses&publisherDomain=north.example&publisherDomain=south.example&tag=shard-1');
    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(20);
    expect(reply.body.items.every((item: { publisherDomain: string; tags: string[] }) => item.publisherDomain !== 'east.example' && item.tags.includes('shard-1'))).toBe(true);
    expect(reply.body.facets.publisherDomain).toEqual([
      { value: 'north.example', count: 10 },
      { value: 'south.example', count: 10 },
    ]);
    expect(reply.body.facets.tag).toEqual([
      { value: 'shard-1', count: 20 },
      { value: 'travel', count: 20 },
    ]);
  });

  it('pages through every card exactly once while new cards are published between pages', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let fresh = 0;
    do {
      const reply: { status: number; body: { items: Array<{ identifier: string }>; nextCursor: string | null } } = await registry.call('GET', `/v1/search?tag=travel&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(reply.status).toBe(200);
      seen.push(...reply.body.items.map((item: { identifier: string }) => item.identifier));
      cursor = reply.body.nextCursor;
      fresh += 1;
      const published = await registry.call('POST', '/v1/cards', { token: tokens.get('east.example') ?? '', raw: cardOf('east.example', 100 + fresh) });
      expect(published.status).toBe(201);
    } while (cursor !== null);
    const original = seen.filter((identifier) => Number(/agent-(\d+)$/.exec(identifier)?.[1]) < PER_DOMAIN);
    expect(original).toHaveLength(DOMAINS.length * PER_DOMAIN);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('follows a deletion through the change feed and out of the catalog', async () => {
    const identifier = 'https://north.example/agents/agent-000';
    const catalogPath = '/namespaces/north.example/.well-known/ai-catalog.json';
    const before = await registry.call('GET', catalogPath);
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toBe('application/ai-catalog+json');
    expect(before.body.entries).toHaveLength(PER_DOMAIN);
    const etag = before.headers.get('etag') ?? '';
    expect((await registry.call('GET', catalogPath, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const mark = new Date().toISOString();
    expect((await registry.call('POST', cardPath(identifier, '/status'), { token: tokens.get('north.example') ?? '', json: { status: 'deleted', message: 'Retired' } })).status).toBe(200);
    await waitUntil(async () => (await registry.call('GET', `/v1/changes?updatedSince=${encodeURIComponent(mark)}`)).body?.changes?.length === 1, { timeoutMs: 30_000 });
    const changes = await registry.call('GET', `/v1/changes?updatedSince=${encodeURIComponent(mark)}`);
    expect(changes.body.changes).toEqual([expect.objectContaining({ identifier, status: 'deleted', deleted: true, statusMessage: 'Retired' })]);

    const after = await registry.call('GET', catalogPath, { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.body.entries).toHaveLength(PER_DOMAIN - 1);
    expect(after.body.entries[0].url).toMatch(/^https:\/\/registry\.example\.test\/v1\/cards\//);
  });
});
