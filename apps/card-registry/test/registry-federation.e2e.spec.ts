/**
 * Federation through the real HTTP API of one registry on embedded PGlite, crawling real HTTPS sources (test CA,
 * 127.0.0.1 admitted only through the REGISTRY_TEST_ONLY_* fetch overrides): adding sources (https only,
 * bounded, operator only, nothing stored on a refusal), crawl-now storing records with provenance, a second crawl
 * answered 304 storing nothing, deprecation passed downstream, a removed entry tombstoned, a redirect to a private
 * address refused and reported, a local card never overwritten by a remote one, and a removed source's records
 * tombstoned. The scheduler is off here: crawls happen when the test asks.
 */
import { createHash } from 'node:crypto';

import { waitUntil } from '@trustmesh/platform-testing';

import { safeFetcherPort, type CrawlFetcher } from '@trustmesh/cards-federation';

import { FederationRepository } from '../src/federation/federation.repository';
import { FederationService } from '../src/federation/federation.service';
import { sourceStreamId, type SourceCrawlStarted } from '../src/federation/federation.stream';
import { createTrustNetwork } from '../src/trust/trust-network';
import { onboard, OPERATOR_TOKEN, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath } from './support/registry-clients';
import { jsonRoute, seedCatalog, startFederationSite, type FederationSite } from './support/federation-site';

const CATALOG = '/.well-known/ai-catalog.json';
const remotePath = (identifier: string, sourceId: string, revisionKey: string) => cardPath(identifier, `/remote/${sourceId}/${encodeURIComponent(revisionKey)}`);
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('card registry: federation', () => {
  let site: FederationSite;
  let app: RegistryApp;

  beforeAll(async () => {
    site = await startFederationSite(['acme.test', 'beta.test', 'evil.test', 'gamma.test']);
    app = await startRegistryApp({ REGISTRY_FEDERATION_SCHEDULER: 'off', ...site.registryEnv({ 'internal.test': '10.0.0.7' }) });
  });
  afterAll(async () => {
    await app?.close();
    await site?.close();
  });

  const operator = { token: OPERATOR_TOKEN };
  const addSource = (json: unknown, token: string | null = OPERATOR_TOKEN) => app.call('POST', '/v1/operator/sources', { token, json });
  const crawl = (sourceId: string) => app.call('POST', `/v1/operator/sources/${sourceId}/crawl`, operator);
  const mirrorsOf = async (identifier: string) => {
    const reply = await app.call('GET', `${cardPath(identifier)}?origin=remote`);
    return reply.status === 200 ? (reply.body.mirrors as Array<Record<string, any>>) : [];
  };
  /** Waits until the read model shows `identifier` from `sourceId` as `check` wants it. */
  const mirrorOf = async (identifier: string, sourceId: string, check: (mirror: Record<string, any>) => boolean) => {
    let found: Record<string, any> | undefined;
    await waitUntil(
      async () => {
        found = (await mirrorsOf(identifier)).find((mirror) => mirror.sourceId === sourceId && check(mirror));
        return found !== undefined;
      },
      { timeoutMs: 20_000, what: `${identifier} from ${sourceId} in the read model` },
    );
    return found as Record<string, any>;
  };
  const sourceEvents = async (sourceId: string) => (await app.handle.infrastructure.store.readStream(sourceStreamId(sourceId))).map((event) => event.envelope.eventType);

  it('adds an https source once (operator only, bounded input, nothing stored on a refusal) and lists it', async () => {
    const refusals: Array<[unknown, number, string]> = [
      [{ url: 'http://acme.test' }, 400, 'SOURCE_URL_NOT_HTTPS'],
      [{ url: 'https://127.0.0.1/' }, 400, 'SOURCE_ADDRESS_REFUSED'],
      [{ url: `https://acme.test/${'a'.repeat(2100)}` }, 400, 'SOURCE_URL_TOO_LONG'],
      [{ url: 'https://user:secret@acme.test/' }, 400, 'SOURCE_URL_CREDENTIALS'],
      [{ url: 'not a url' }, 400, 'SOURCE_URL_INVALID'],
      [{ url: site.origin('acme.test'), intervalSeconds: 5 }, 400, 'INTERVAL_INVALID'],
      [{ url: site.origin('acme.test'), mirror: true }, 400, 'FIELD_UNKNOWN'],
      [{}, 400, 'FIELD_REQUIRED'],
    ];
    for (const [body, status, code] of refusals) {
      const reply = await addSource(body);
      expect([reply.status, reply.body.code]).toEqual([status, code]);
      expect(reply.headers.get('content-type')).toContain('application/problem+json');
    }
    const publisher = await onboard(app.call, 'acme', ['acme.example']);
    expect((await addSource({ url: site.origin('acme.test') }, publisher)).body.code).toBe('OPERATOR_ONLY');
    expect((await addSource({ url: site.origin('acme.test') }, null)).status).toBe(401);
    expect((await app.call('POST', '/v1/operator/sources', { token: OPERATOR_TOKEN, raw: JSON.stringify({ url: `https://acme.test/${'a'.repeat(70_000)}` }) })).body.code).toBe('BODY_TOO_LARGE');
    expect((await app.call('GET', '/v1/operator/sources', operator)).body.sources).toEqual([]);

    const added = await addSource({ url: site.origin('acme.test'), intervalSeconds: 600 });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ url: `${site.origin('acme.test')}/`, intervalSeconds: 600, crawling: false, lastCrawl: null, created: true });
    const again = await addSource({ url: `${site.origin('ACME.test')}/` });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ sourceId: added.body.sourceId, created: false, intervalSeconds: 600 });
    const listed = await app.call('GET', '/v1/operator/sources', operator);
    expect(listed.body.sources.map((source: { sourceId: string }) => source.sourceId)).toEqual([added.body.sourceId]);
    expect((await app.call('GET', '/v1/operator/sources/0123456789abcdef0123456789abcdef', operator)).body.code).toBe('SOURCE_NOT_FOUND');
    expect((await crawl('0123456789abcdef0123456789abcdef')).status).toBe(404);
    expect((await crawl('not-a-source-id')).body.code).toBe('SOURCE_NOT_FOUND');
    const asPublisher = await app.call('POST', `/v1/operator/sources/${added.body.sourceId}/crawl`, { token: publisher });
    expect([asPublisher.status, asPublisher.body.code]).toEqual([403, 'OPERATOR_ONLY']);
    expect((await app.call('DELETE', `/v1/operator/sources/${added.body.sourceId}`, { token: publisher })).body.code).toBe('OPERATOR_ONLY');
    expect((await app.call('GET', '/v1/operator/sources', { token: publisher })).status).toBe(403);
    expect((await app.call('GET', `/v1/operator/sources/${added.body.sourceId}`, operator)).body.lastCrawl).toBeNull();
  });

  it('crawls now: records stored apart with provenance; a second crawl answered 304 stores nothing; a deprecated card passes downstream; a removed entry becomes a tombstone', async () => {
    const origin = site.origin('acme.test');
    const invoices = 'https://acme.example/agents/remote-invoices';
    const payments = 'https://acme.example/agents/remote-payments';
    const invoicesCard = bytesOf(aiCard('acme.example', { id: invoices }));
    site.serve('acme.test', '/cards/invoices.json', { headers: { 'content-type': 'application/json' }, body: invoicesCard, etag: '"inv-1"' });
    site.serve('acme.test', '/cards/payments.json', jsonRoute(aiCard('acme.example', { id: payments, name: 'Payments helper' }), '"pay-1"'));
    site.serve('acme.test', CATALOG, jsonRoute(seedCatalog('Acme', [
      { id: invoices, cardUrl: `${origin}/cards/invoices.json` },
      { id: payments, cardUrl: `${origin}/cards/payments.json` },
    ]), '"cat-1"'));
    const { sourceId } = (await addSource({ url: origin })).body as { sourceId: string };

    const first = await crawl(sourceId);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ sourceId, url: `${origin}/`, problems: [] });
    expect(first.body.stored).toEqual(expect.arrayContaining([invoices, payments]));
    const mirror = await mirrorOf(invoices, sourceId, () => true);
    expect(mirror).toMatchObject({
      identifier: invoices,
      origin: 'remote',
      kind: 'ai-card',
      status: 'active',
      digest: `sha-256:${sha(invoicesCard)}`,
      provenance: { sourceUrl: `${origin}/`, catalogUrl: `${origin}${CATALOG}`, documentUrl: `${origin}/cards/invoices.json`, etag: '"inv-1"', digest: `sha-256:${sha(invoicesCard)}` },
    });
    expect(Date.parse(mirror.provenance.fetchedAt)).not.toBeNaN();
    const served = await app.call('GET', remotePath(invoices, sourceId, mirror.revisionKey));
    expect(served.status).toBe(200);
    expect(served.bytes.toString('utf8')).toBe(invoicesCard);
    expect(served.headers.get('content-type')).toBe('application/json');
    expect(served.headers.get('etag')).toBe(`"sha-256:${sha(invoicesCard)}"`);
    expect(served.headers.get('x-card-origin')).toBe('remote');
    // A remote record is not a local card: the local read still knows no such card.
    expect((await app.call('GET', cardPath(invoices))).body.code).toBe('CARD_NOT_FOUND');
    const listedSource = (await app.call('GET', `/v1/operator/sources/${sourceId}`, operator)).body;
    expect(listedSource.lastCrawl).toMatchObject({ crawlId: first.body.crawlId, summary: first.body.summary });

    const eventsBefore = await sourceEvents(sourceId);
    const second = await crawl(sourceId);
    expect(second.status).toBe(200);
    expect(second.body.summary).toMatchObject({ records: 0, gone: 0, problems: 0 });
    expect(second.body.summary.unchanged).toBeGreaterThanOrEqual(2);
    expect(site.hits('acme.test', CATALOG).at(-1)).toEqual({ ifNoneMatch: '"cat-1"' });
    const eventsAfter = await sourceEvents(sourceId);
    expect(eventsAfter.slice(eventsBefore.length)).toEqual(['SourceCrawlStarted', 'SourceCrawled']);
    expect((await mirrorsOf(invoices)).find((copy) => copy.sourceId === sourceId)?.provenance.fetchedAt).toBe(mirror.provenance.fetchedAt);

    // The source deprecates one card and stops listing the other.
    site.serve('acme.test', '/cards/invoices.json', jsonRoute(aiCard('acme.example', { id: invoices, maturity: 'deprecated', updatedAt: '2026-03-01T10:00:00Z' }), '"inv-2"'));
    site.serve('acme.test', CATALOG, jsonRoute(seedCatalog('Acme', [{ id: invoices, cardUrl: `${origin}/cards/invoices.json` }]), '"cat-2"'));
    const third = await crawl(sourceId);
    expect(third.body).toMatchObject({ gone: [payments], problems: [] });
    expect(third.body.stored).toContain(invoices);
    const deprecated = await mirrorOf(invoices, sourceId, (copy) => copy.revisionKey === 'updatedAt:2026-03-01T10:00:00Z');
    expect(deprecated).toMatchObject({ status: 'deprecated', provenance: { etag: '"inv-2"' } });
    const tombstone = await mirrorOf(payments, sourceId, (copy) => copy.status === 'deleted');
    expect(Date.parse(tombstone.goneAt)).not.toBeNaN();
    const goneBytes = await app.call('GET', remotePath(payments, sourceId, tombstone.revisionKey));
    expect(goneBytes.status).toBe(410);
    expect(goneBytes.body).toMatchObject({ code: 'REMOTE_CARD_GONE', tombstone: { identifier: payments, sourceId, status: 'deleted' } });

    // Listed again (its card unchanged, still answering 304 to the old ETag): fetched whole, so it comes back.
    site.serve('acme.test', CATALOG, jsonRoute(seedCatalog('Acme', [
      { id: invoices, cardUrl: `${origin}/cards/invoices.json` },
      { id: payments, cardUrl: `${origin}/cards/payments.json` },
    ]), '"cat-3"'));
    const fourth = await crawl(sourceId);
    expect(fourth.body).toMatchObject({ stored: [payments], gone: [], problems: [] });
    await mirrorOf(payments, sourceId, (copy) => copy.status === 'active' && copy.goneAt === undefined);
  });

  it('refuses and reports a source that redirects to a private address, storing nothing from it', async () => {
    site.serve('evil.test', CATALOG, { status: 302, headers: { location: `https://internal.test:${site.port}${CATALOG}` } });
    const { sourceId } = (await addSource({ url: site.origin('evil.test') })).body as { sourceId: string };
    const crawled = await crawl(sourceId);
    expect(crawled.status).toBe(200);
    expect(crawled.body.stored).toEqual([]);
    expect(crawled.body.problems).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'FETCH_ADDRESS_REFUSED', url: expect.stringContaining('evil.test') })]));
    const source = (await app.call('GET', `/v1/operator/sources/${sourceId}`, operator)).body;
    expect(source.lastCrawl.problems.map((problem: { code: string }) => problem.code)).toContain('FETCH_ADDRESS_REFUSED');
    expect((await sourceEvents(sourceId)).filter((type) => type.startsWith('Remote'))).toEqual([]);
  });

  it('never lets a source overwrite or answer for a local card of the same id; removing the source tombstones its records', async () => {
    const publisher = (await app.call('POST', '/v1/operator/publishers/acme/credentials', { token: OPERATOR_TOKEN, json: {} })).body.credential as string;
    const identifier = 'https://acme.example/agents/local-and-remote';
    const local = bytesOf(aiCard('acme.example', { id: identifier, description: 'Published here by its owner' }));
    const published = await app.call('POST', '/v1/cards', { token: publisher, raw: local });
    expect(published.status).toBe(201);

    const origin = site.origin('beta.test');
    const remote = bytesOf(aiCard('acme.example', { id: identifier, description: 'Claimed by another host' }));
    site.serve('beta.test', '/card.json', { headers: { 'content-type': 'application/json' }, body: remote });
    site.serve('beta.test', CATALOG, jsonRoute(seedCatalog('Beta', [{ id: identifier, cardUrl: `${origin}/card.json` }])));
    const { sourceId } = (await addSource({ url: origin })).body as { sourceId: string };
    expect((await crawl(sourceId)).body.stored).toContain(identifier);
    const copy = await mirrorOf(identifier, sourceId, () => true);
    expect(copy).toMatchObject({ digest: `sha-256:${sha(remote)}`, provenance: { sourceUrl: `${origin}/` } });

    const latest = await app.call('GET', cardPath(identifier));
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ publisherId: 'acme', latest: { digest: published.body.digest } });
    const revisions = (await app.call('GET', cardPath(identifier, '/revisions'))).body.revisions as unknown[];
    expect(revisions).toHaveLength(1);
    const bytes = await app.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`));
    expect(bytes.bytes.toString('utf8')).toBe(local);
    const rows = await app.handle.infrastructure.database.withConnection((sql) => sql.query<{ digest: string }>('SELECT digest FROM registry_card_revisions WHERE identifier = $1', [identifier]));
    expect(rows.map((row) => row.digest)).toEqual([published.body.digest]);
    expect((await app.call('GET', `${cardPath(identifier)}?origin=elsewhere`)).body.code).toBe('PARAMETER_INVALID');

    const removed = await app.call('DELETE', `/v1/operator/sources/${sourceId}`, operator);
    expect(removed.body).toEqual({ sourceId, removed: true });
    expect((await app.call('DELETE', `/v1/operator/sources/${sourceId}`, operator)).body.code).toBe('SOURCE_NOT_FOUND');
    expect((await crawl(sourceId)).body.code).toBe('SOURCE_NOT_FOUND');
    await mirrorOf(identifier, sourceId, (mirror) => mirror.status === 'deleted');
    expect((await app.call('GET', cardPath(identifier))).body.latest.digest).toBe(published.body.digest);
  });

  it('stores only the crawl of the replica holding the claim: one whose claim expired mid-crawl hears CRAWL_SUPERSEDED and stores nothing', async () => {
    const origin = site.origin('gamma.test');
    const identifier = 'urn:air:gamma.test:agent:planner';
    site.serve('gamma.test', '/planner.json', jsonRoute(aiCard('gamma.test', { id: identifier })));
    site.serve('gamma.test', CATALOG, jsonRoute(seedCatalog('Gamma', [{ id: identifier, cardUrl: `${origin}/planner.json` }])));
    const { sourceId } = (await addSource({ url: origin })).body as { sourceId: string };

    // Two more replicas over the same event store, each with its own cache and a clock the test moves.
    const { store, publisher, prisma } = app.handle.infrastructure;
    const real = safeFetcherPort(createTrustNetwork(app.handle.config.trust).fetcher);
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let fetching = () => undefined as void;
    const fetchStarted = new Promise<void>((resolve) => (fetching = resolve));
    const stalled: CrawlFetcher = {
      async get(url, request) {
        fetching();
        await released;
        return real.get(url, request);
      },
    };
    let clock = Date.now();
    const replica = (fetcher: CrawlFetcher, replicaId: string) =>
      new FederationService({ repository: new FederationRepository(store, publisher), fetcher, prisma, logger: { log: () => undefined }, now: () => new Date(clock), replicaId, crawlDeadlineMs: 5_000, maxDocumentBytes: 64 * 1024 });
    const slow = replica(stalled, 'replica-slow');
    const quick = replica(real, 'replica-quick');
    const caller = { kind: 'operator', accountId: 'ops' } as const;

    const stalledCrawl = slow.crawlNow(caller, sourceId);
    await fetchStarted;
    expect(await quick.crawlNow(caller, sourceId)).toMatchObject({ ok: false, failure: { kind: 'conflict', code: 'CRAWL_IN_PROGRESS' } });
    clock += 60_000; // past the slow replica's claim (deadline 5 s + 30 s to store): presumed dead
    const taken = await quick.crawlNow(caller, sourceId);
    expect(taken).toMatchObject({ ok: true, value: { stored: [identifier], problems: [] } });
    release();
    expect(await stalledCrawl).toMatchObject({ ok: false, failure: { kind: 'conflict', code: 'CRAWL_SUPERSEDED' } });

    const recorded = (await store.readStream(sourceStreamId(sourceId))).map(({ envelope }) => envelope);
    const claims = recorded.filter((envelope) => envelope.eventType === 'SourceCrawlStarted').map((envelope) => envelope.data as SourceCrawlStarted);
    expect(claims.map((claim) => claim.replicaId)).toEqual(['replica-slow', 'replica-quick']);
    const slowCrawlId = claims[0]?.crawlId;
    expect(recorded.filter((envelope) => (envelope.data as { crawlId?: string }).crawlId === slowCrawlId).map((envelope) => envelope.eventType)).toEqual(['SourceCrawlStarted']);
    expect(recorded.at(-1)?.eventType).toBe('SourceCrawled');
    await mirrorOf(identifier, sourceId, () => true);
  });
});
