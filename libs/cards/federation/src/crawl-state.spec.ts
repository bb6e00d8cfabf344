import { aiCard, cardEntry, CATALOG_TYPE, catalogEntry, finalCatalog, json, sha256, startTestSite, type TestSite } from './crawl.spec-support';
import type { CrawlReport, CrawlState } from './crawl.types';

const identifiers = (report: CrawlReport): string[] => report.records.map((record) => record.identifier);

describe('crawlSource across crawls and on broken catalogs', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite();
  });
  afterAll(() => site.close());
  beforeEach(() => site.reset());

  it('keeps the roots a Link header named when the source page is down, and drops them once the page stops naming them', async () => {
    site.routes['/'] = { headers: { 'content-type': 'text/html', link: '</linked.json>; rel="ai-catalog"' }, body: '' };
    site.routes['/linked.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:linked', site.at('/cards/linked.json'))]), { type: CATALOG_TYPE });
    site.routes['/cards/linked.json'] = json(aiCard('urn:air:acme.test:agent:linked'));
    const first = await site.crawl();
    expect(first.nextState.roots).toEqual([site.at('/linked.json')]);

    site.routes['/'] = { status: 502, body: 'bad gateway' };
    const outage = await site.crawl(first.nextState);
    expect(outage.report.gone).toEqual([]);
    expect(outage.report.unchanged).toEqual(['urn:air:acme.test:agent:linked']);
    expect(outage.report.problems.map((found) => [found.url, found.code])).toEqual([[`${site.origin}/`, 'FETCH_HTTP_STATUS']]);

    site.routes['/'] = { headers: { 'content-type': 'text/html' }, body: '<p>moved on</p>' };
    const dropped = await site.crawl(outage.nextState);
    expect(dropped.report.gone).toEqual(['urn:air:acme.test:agent:linked']);
  });

  it('treats a 410 catalog as gone, with everything it listed', async () => {
    site.routes['/'] = { headers: { 'content-type': 'text/html', link: '</c.json>; rel="ai-catalog"' }, body: '' };
    site.routes['/c.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:old', site.at('/cards/old.json'))]));
    site.routes['/cards/old.json'] = json(aiCard('urn:air:acme.test:agent:old'));
    const first = await site.crawl();

    site.routes['/c.json'] = { status: 410, body: 'gone' };
    const second = await site.crawl(first.nextState);

    expect(second.report.gone).toEqual(['urn:air:acme.test:agent:old']);
    expect(second.report.problems).toEqual([expect.objectContaining({ url: site.at('/c.json'), code: 'FETCH_HTTP_STATUS' })]);
  });

  it('follows an unchanged (304) nested catalog from memory, still picking up a changed card below it', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([catalogEntry('urn:air:acme.test:catalog:team', site.at('/team.json'))]), { etag: '"root"' });
    site.routes['/team.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:member', site.at('/cards/member.json'))]), { etag: '"team"' });
    site.routes['/cards/member.json'] = json(aiCard('urn:air:acme.test:agent:member'), { etag: '"m1"' });
    const first = await site.crawl();
    expect(identifiers(first.report)).toEqual(['urn:air:acme.test:agent:member', 'urn:air:acme.test:catalog:team']);

    site.routes['/cards/member.json'] = json(aiCard('urn:air:acme.test:agent:member', { updatedAt: '2026-04-01T00:00:00Z' }), { etag: '"m2"' });
    const second = await site.crawl(first.nextState);

    expect(identifiers(second.report)).toEqual(['urn:air:acme.test:agent:member']);
    expect(second.report.records[0]?.provenance.etag).toBe('"m2"');
    expect(second.report.unchanged).toEqual(['urn:air:acme.test:catalog:team']);
    expect(second.report.gone).toEqual([]);
  });

  it("checks a nested catalog against its entry's digest even when the nested catalog itself is unchanged (304)", async () => {
    const team = JSON.stringify(finalCatalog([cardEntry('urn:air:acme.test:agent:member', site.at('/cards/member.json'))]));
    const root = (digest: string) => json(finalCatalog([{ ...catalogEntry('urn:air:acme.test:catalog:team', site.at('/team.json')), digest }]));
    site.routes['/.well-known/ai-catalog.json'] = root(sha256(team));
    site.routes['/team.json'] = json(team, { etag: '"team"' });
    site.routes['/cards/member.json'] = json(aiCard('urn:air:acme.test:agent:member'));
    const first = await site.crawl();
    expect(first.report.problems).toEqual([]);

    site.routes['/.well-known/ai-catalog.json'] = root(sha256('a different team catalog'));
    const second = await site.crawl(first.nextState);

    expect(second.report.problems).toEqual([expect.objectContaining({ url: site.at('/.well-known/ai-catalog.json'), code: 'DIGEST_MISMATCH', pointer: '/entries/0/digest' })]);
    // Refused content is not authoritative: what the nested catalog listed before stays listed.
    expect(second.report.gone).toEqual([]);
  });

  it('refuses only the broken entry of a catalog, and a whole catalog only when its root is broken', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(
      finalCatalog([
        cardEntry('urn:air:acme.test:agent:fine', site.at('/cards/fine.json')),
        { identifier: 'urn:air:acme.test:agent:plain-http', type: 'application/json', url: 'http://acme.test/cards/x.json' },
      ]),
    );
    site.routes['/cards/fine.json'] = json(aiCard('urn:air:acme.test:agent:fine'));
    const { report, nextState } = await site.crawl();
    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:fine']);
    expect(report.problems).toEqual([expect.objectContaining({ code: 'ENTRY_INVALID', pointer: '/entries/1/url' })]);
    expect(nextState.listed).toEqual(['urn:air:acme.test:agent:fine', 'urn:air:acme.test:agent:plain-http']);

    site.routes['/.well-known/ai-catalog.json'] = json('{"specVersion": "1.0", "entries": [], "entries": []}');
    const duplicate = await site.crawl(nextState);
    expect(duplicate.report.problems).toEqual([expect.objectContaining({ code: 'CATALOG_INVALID', message: expect.stringContaining('JSON_DUPLICATE_KEY') })]);
    expect(duplicate.report.gone).toEqual([]);
  });

  it('reads ARD named by a Link header, and reports an ARD document that holds no catalog', async () => {
    site.routes['/'] = { headers: { 'content-type': 'text/html', link: '<https://acme.test:' + site.server.port + '/registry/ard.json>; rel="ard"' }, body: '' };
    site.routes['/registry/ard.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:ard', site.at('/cards/ard.json'))]));
    site.routes['/cards/ard.json'] = json(aiCard('urn:air:acme.test:agent:ard'));
    site.routes['/.well-known/ard.json'] = json({ agents: 'not a catalog', registry: { name: 'Acme' } });

    const { report } = await site.crawl();

    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:ard']);
    expect(report.problems).toEqual([expect.objectContaining({ url: site.at('/.well-known/ard.json'), code: 'ARD_NOT_A_CATALOG' })]);
  });

  it('stores the same bytes listed by two catalogs once, under the identifier both state', async () => {
    const shared = [cardEntry('urn:air:acme.test:agent:shared', site.at('/cards/shared.json'))];
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog(shared));
    site.routes['/.well-known/ard.json'] = json(finalCatalog(shared));
    site.routes['/cards/shared.json'] = json(aiCard('urn:air:acme.test:agent:shared'));

    const { report } = await site.crawl();

    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:shared']);
    expect(site.server.requests.filter((request) => request.path === '/cards/shared.json')).toHaveLength(1);
  });

  it('crawls normally with nonsensical limits and a state that lacks members (defaults apply, nothing hangs)', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:x', site.at('/cards/x.json'))]));
    site.routes['/cards/x.json'] = json(aiCard('urn:air:acme.test:agent:x'));

    const partialState = { listed: ['urn:air:acme.test:agent:old'] } as unknown as CrawlState;
    const { report } = await site.crawl(partialState, { limits: { concurrency: 0, maxDocumentsPerCrawl: -1, maxBytesPerDocument: Number.NaN } });

    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:x']);
    expect(report.gone).toEqual(['urn:air:acme.test:agent:old']);
    expect(report.problems).toEqual([]);
  });

  it('passes a lifecycle extension of the entry downstream as deprecated, and keeps unknown artifact types as opaque bytes', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(
      finalCatalog([
        cardEntry('urn:air:acme.test:agent:sunset', site.at('/cards/sunset.json'), { extensions: { 'com.acme.lifecycle': { status: 'deprecated' } } }),
        { identifier: 'urn:air:acme.test:skills:pdf', type: 'application/agent-skills+zip', url: site.at('/skills/pdf.zip') },
      ]),
    );
    site.routes['/cards/sunset.json'] = json(aiCard('urn:air:acme.test:agent:sunset'));
    site.routes['/skills/pdf.zip'] = { headers: { 'content-type': 'application/zip' }, body: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0xff]) };

    const { report } = await site.crawl();

    expect(report.problems).toEqual([]);
    expect(report.records.map((record) => [record.identifier, record.kind, record.status])).toEqual([
      ['urn:air:acme.test:agent:sunset', 'ai-card', 'deprecated'],
      ['urn:air:acme.test:skills:pdf', 'artifact', 'active'],
    ]);
    expect(Array.from(report.records[1]?.bytes ?? [])).toEqual([0x50, 0x4b, 0x03, 0x04, 0xff]);
  });
});
