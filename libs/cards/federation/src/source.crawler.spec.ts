import { aiCard, cardEntry, CATALOG_TYPE, finalCatalog, json, seedCatalog, sha256, startTestSite, type TestSite } from './crawl.spec-support';
import type { CrawlReport } from './crawl.types';

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');
const codes = (report: CrawlReport): string[] => report.problems.map((problem) => problem.code);
const identifiers = (report: CrawlReport): string[] => report.records.map((record) => record.identifier);
/** JCS for plain strings and objects: keys sorted at every level (the fixtures hold no numbers or escapes). */
const sortedKeys = (value: unknown): unknown =>
  typeof value !== 'object' || value === null || Array.isArray(value)
    ? value
    : Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, item]) => [key, sortedKeys(item)]));

describe('crawlSource over real HTTPS: discovery, records and provenance', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite();
  });
  afterAll(() => site.close());
  beforeEach(() => site.reset());

  it('reads a seed catalog at /.well-known/ai-catalog.json and stores each card with its exact bytes, digest and provenance', async () => {
    const card = JSON.stringify(aiCard('did:web:acme.test:agents:Finance'), null, 2);
    site.routes['/.well-known/ai-catalog.json'] = json(seedCatalog([{ id: 'did:web:acme.test:agents:Finance', cardUrl: site.at('/cards/finance.json') }]), { etag: '"c1"' });
    site.routes['/cards/finance.json'] = { headers: { 'content-type': 'application/json', etag: '"f1"', 'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT' }, body: card };

    const { report } = await site.crawl();

    expect(report.problems).toEqual([]);
    expect(report.records).toHaveLength(1);
    const [record] = report.records;
    // The id is kept exactly, upper-case segment included: never normalised, never replaced by a local id.
    expect(record?.identifier).toBe('did:web:acme.test:agents:Finance');
    expect(record?.kind).toBe('ai-card');
    expect(text(record?.bytes ?? new Uint8Array())).toBe(card);
    expect(record?.digest).toBe(sha256(card));
    expect(record?.revisionKey).toBe('updatedAt:2026-02-01T00:00:00Z');
    expect(record?.status).toBe('active');
    expect(record?.provenance).toEqual({
      sourceUrl: `${site.origin}/`,
      catalogUrl: site.at('/.well-known/ai-catalog.json'),
      documentUrl: site.at('/cards/finance.json'),
      fetchedAt: report.fetchedAt,
      etag: '"f1"',
      lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT',
      digest: sha256(card),
    });
  });

  it('follows Link headers of the source page (several links, relative targets resolved against the response URL)', async () => {
    site.routes['/'] = { headers: { 'content-type': 'text/html', link: '</style.css>; rel=stylesheet, <catalogs/main.json>; rel="ai-catalog"' }, body: '<html></html>' };
    site.routes['/catalogs/main.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:linked', site.at('/cards/linked.json'))]), { type: CATALOG_TYPE });
    site.routes['/cards/linked.json'] = json(aiCard('urn:air:acme.test:agent:linked'));

    const { report } = await site.crawl();

    expect(report.problems).toEqual([]);
    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:linked']);
    expect(report.records[0]?.provenance.catalogUrl).toBe(site.at('/catalogs/main.json'));
  });

  it('follows an HTML <link rel="ai-catalog"> of the source page', async () => {
    site.routes['/home'] = { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<head><link rel="ai-catalog" href="/c.json"></head>' };
    site.routes['/c.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:html', site.at('/cards/html.json'))]));
    site.routes['/cards/html.json'] = json(aiCard('urn:air:acme.test:agent:html'));

    const { report } = await site.crawl(undefined, { source: site.at('/home') });

    expect(report.problems).toEqual([]);
    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:html']);
  });

  it('crawls both /.well-known/ai-catalog.json and ARD /.well-known/ard.json', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:one', site.at('/cards/one.json'))]), { type: CATALOG_TYPE });
    site.routes['/.well-known/ard.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:two', site.at('/cards/two.json'))]));
    site.routes['/cards/one.json'] = json(aiCard('urn:air:acme.test:agent:one'));
    site.routes['/cards/two.json'] = json(aiCard('urn:air:acme.test:agent:two', { maturity: 'deprecated' }));

    const { report, nextState } = await site.crawl();

    expect(report.problems).toEqual([]);
    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:one', 'urn:air:acme.test:agent:two']);
    // Deprecation passes downstream.
    expect(report.records.map((record) => record.status)).toEqual(['active', 'deprecated']);
    expect(nextState.roots).toEqual([site.at('/.well-known/ai-catalog.json'), site.at('/.well-known/ard.json')].sort());
  });

  it('reports a source with no catalog anywhere, and refuses a catalog served as text/plain', async () => {
    site.routes['/'] = { headers: { 'content-type': 'text/html' }, body: '<p>nothing here</p>' };
    expect(codes((await site.crawl()).report)).toEqual(['DISCOVERY_NO_CATALOG']);

    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([]), { type: 'text/plain' });
    const { report } = await site.crawl();
    expect(report.problems).toEqual([expect.objectContaining({ url: site.at('/.well-known/ai-catalog.json'), code: 'CATALOG_CONTENT_TYPE' })]);
  });
});

describe('crawlSource over real HTTPS: conditional GETs, gone, and refused records', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite();
  });
  afterAll(() => site.close());
  beforeEach(() => site.reset());

  const twoCards = (): void => {
    site.routes['/cards/a.json'] = json(aiCard('urn:air:acme.test:agent:a'), { etag: '"a1"' });
    site.routes['/cards/b.json'] = json(aiCard('urn:air:acme.test:agent:b'), { etag: '"b1"' });
  };

  it('makes no new records when the catalog and the cards answer 304, and sends the validators it kept', async () => {
    twoCards();
    const entries = [cardEntry('urn:air:acme.test:agent:a', site.at('/cards/a.json')), cardEntry('urn:air:acme.test:agent:b', site.at('/cards/b.json'))];
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog(entries), { type: CATALOG_TYPE, etag: '"cat1"' });

    const first = await site.crawl();
    expect(identifiers(first.report)).toEqual(['urn:air:acme.test:agent:a', 'urn:air:acme.test:agent:b']);
    expect(first.nextState.documents[site.at('/cards/a.json')]).toEqual(expect.objectContaining({ etag: '"a1"', digest: first.report.records[0]?.digest }));

    const before = site.server.requests.length;
    const second = await site.crawl(first.nextState);

    expect(second.report.records).toEqual([]);
    expect(second.report.unchanged).toEqual(['urn:air:acme.test:agent:a', 'urn:air:acme.test:agent:b']);
    expect(second.report.gone).toEqual([]);
    expect(second.report.problems).toEqual([]);
    const sent = site.server.requests.slice(before).filter((request) => request.path !== '/' && !request.path.endsWith('ard.json'));
    expect(sent.map((request) => request.headers['if-none-match']).sort()).toEqual(['"a1"', '"b1"', '"cat1"']);
  });

  it('lists an entry the source removed in `gone`, and records only what changed', async () => {
    twoCards();
    site.routes['/.well-known/ai-catalog.json'] = json(
      finalCatalog([cardEntry('urn:air:acme.test:agent:a', site.at('/cards/a.json')), cardEntry('urn:air:acme.test:agent:b', site.at('/cards/b.json'))]),
    );
    const first = await site.crawl();

    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:a', site.at('/cards/a.json'))]));
    site.routes['/cards/a.json'] = json(aiCard('urn:air:acme.test:agent:a', { updatedAt: '2026-03-01T00:00:00Z' }), { etag: '"a2"' });
    const second = await site.crawl(first.nextState);

    expect(second.report.gone).toEqual(['urn:air:acme.test:agent:b']);
    expect(identifiers(second.report)).toEqual(['urn:air:acme.test:agent:a']);
    expect(second.report.records[0]?.revisionKey).toBe('updatedAt:2026-03-01T00:00:00Z');
    expect(second.nextState.listed).toEqual(['urn:air:acme.test:agent:a']);
  });

  it('tombstones nothing when the catalog cannot be read this time', async () => {
    twoCards();
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:a', site.at('/cards/a.json'))]));
    const first = await site.crawl();

    site.routes['/.well-known/ai-catalog.json'] = { status: 503, body: 'down for maintenance' };
    const second = await site.crawl(first.nextState);

    expect(second.report.gone).toEqual([]);
    expect(second.report.problems).toEqual([expect.objectContaining({ url: site.at('/.well-known/ai-catalog.json'), code: 'FETCH_HTTP_STATUS' })]);
    expect(second.nextState.listed).toEqual(['urn:air:acme.test:agent:a']);
    expect(second.nextState.documents[site.at('/cards/a.json')]).toEqual(first.nextState.documents[site.at('/cards/a.json')]);
  });

  it('refuses a card whose id differs from its catalog entry, with a code and the entry pointer, and keeps the others', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(
      seedCatalog([
        { id: 'did:web:acme.test:agents:good', cardUrl: site.at('/cards/good.json') },
        { id: 'did:web:acme.test:agents:claimed', cardUrl: site.at('/cards/other.json') },
      ]),
    );
    site.routes['/cards/good.json'] = json(aiCard('did:web:acme.test:agents:good'));
    // Differs only by case: identifiers are compared as plain strings.
    site.routes['/cards/other.json'] = json(aiCard('did:web:acme.test:agents:Claimed'));

    const { report } = await site.crawl();

    expect(identifiers(report)).toEqual(['did:web:acme.test:agents:good']);
    expect(report.problems).toEqual([
      expect.objectContaining({ url: site.at('/.well-known/ai-catalog.json'), code: 'CARD_ID_MISMATCH', pointer: '/aiCards/1/id' }),
    ]);
    expect(report.problems[0]?.message).toContain('did:web:acme.test:agents:Claimed');
  });

  it('refuses an artifact whose bytes do not match the entry digest, and accepts one that does', async () => {
    const body = JSON.stringify(aiCard('urn:air:acme.test:agent:pinned'));
    site.routes['/cards/pinned.json'] = { headers: { 'content-type': 'application/json' }, body };
    site.routes['/cards/tampered.json'] = json(aiCard('urn:air:acme.test:agent:tampered'));
    site.routes['/.well-known/ai-catalog.json'] = json(
      finalCatalog([
        cardEntry('urn:air:acme.test:agent:pinned', site.at('/cards/pinned.json'), { digest: sha256(body) }),
        cardEntry('urn:air:acme.test:agent:tampered', site.at('/cards/tampered.json'), { digest: sha256('something else') }),
      ]),
    );

    const { report } = await site.crawl();

    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:pinned']);
    expect(report.problems).toEqual([expect.objectContaining({ code: 'DIGEST_MISMATCH', pointer: '/entries/1/digest' })]);
  });

  it('stores an inline entry under its identifier, hashing the JCS form of its data', async () => {
    const data = aiCard('urn:air:acme.test:agent:inline');
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([{ identifier: 'urn:air:acme.test:agent:inline', type: 'application/json', data }]));

    const { report } = await site.crawl();

    expect(report.problems).toEqual([]);
    expect(report.records).toHaveLength(1);
    // Key order differs from the served order at every level: the digest is of the canonical form, not of our text.
    expect(report.records[0]?.digest).toBe(sha256(JSON.stringify(sortedKeys(data))));
    expect(report.records[0]?.digest).not.toBe(sha256(JSON.stringify(data)));
    expect(report.records[0]?.provenance.documentUrl).toBeUndefined();
  });
});
