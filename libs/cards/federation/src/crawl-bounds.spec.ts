import { aiCard, cardEntry, CATALOG_TYPE, catalogEntry, finalCatalog, json, startTestSite, type TestSite } from './crawl.spec-support';
import type { CrawlReport } from './crawl.types';

const identifiers = (report: CrawlReport): string[] => report.records.map((record) => record.identifier);
const problem = (report: CrawlReport, code: string) => report.problems.find((found) => found.code === code);

describe('crawlSource bounds over real HTTPS: nesting, cycles, sizes, addresses, time', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite();
  });
  afterAll(() => site.close());
  beforeEach(() => site.reset());

  it('follows nested catalogs, records them under their entry ids, and reports a cycle instead of looping', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([catalogEntry('urn:air:acme.test:catalog:finance', site.at('/catalogs/finance.json'))]));
    site.routes['/catalogs/finance.json'] = json(
      finalCatalog([
        cardEntry('urn:air:acme.test:agent:ledger', site.at('/cards/ledger.json')),
        catalogEntry('urn:air:acme.test:catalog:tax', site.at('/catalogs/tax.json')),
      ]),
      { type: CATALOG_TYPE },
    );
    site.routes['/catalogs/tax.json'] = json(
      finalCatalog([
        cardEntry('urn:air:acme.test:agent:vat', site.at('/cards/vat.json')),
        // Back to its parent: a cycle.
        catalogEntry('urn:air:acme.test:catalog:finance', site.at('/catalogs/finance.json')),
      ]),
    );
    site.routes['/cards/ledger.json'] = json(aiCard('urn:air:acme.test:agent:ledger'));
    site.routes['/cards/vat.json'] = json(aiCard('urn:air:acme.test:agent:vat'));

    const { report, nextState } = await site.crawl();

    expect(identifiers(report)).toEqual([
      'urn:air:acme.test:agent:ledger',
      'urn:air:acme.test:agent:vat',
      'urn:air:acme.test:catalog:finance',
      'urn:air:acme.test:catalog:tax',
    ]);
    expect(report.records.find((record) => record.identifier === 'urn:air:acme.test:agent:vat')?.provenance.catalogUrl).toBe(site.at('/catalogs/tax.json'));
    expect(report.problems).toEqual([expect.objectContaining({ url: site.at('/catalogs/tax.json'), code: 'CATALOG_CYCLE', pointer: '/entries/1' })]);
    expect(site.server.requests.filter((request) => request.path === '/catalogs/finance.json')).toHaveLength(1);
    expect(nextState.listed).toContain('urn:air:acme.test:agent:vat');
  });

  it('reads an inline nested catalog in place and provenances its entries to it', async () => {
    const inline = finalCatalog([cardEntry('urn:air:acme.test:agent:deep', site.at('/cards/deep.json'))]);
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([{ identifier: 'urn:air:acme.test:catalog:inline', type: CATALOG_TYPE, data: inline }]));
    site.routes['/cards/deep.json'] = json(aiCard('urn:air:acme.test:agent:deep'));

    const { report, nextState } = await site.crawl();

    expect(report.problems).toEqual([]);
    expect(report.records.map((record) => [record.identifier, record.kind, record.provenance.catalogUrl])).toEqual([
      ['urn:air:acme.test:agent:deep', 'ai-card', `${site.at('/.well-known/ai-catalog.json')}#/entries/0/data`],
      ['urn:air:acme.test:catalog:inline', 'ai-catalog', site.at('/.well-known/ai-catalog.json')],
    ]);
    expect(nextState.listed).toEqual(['urn:air:acme.test:agent:deep', 'urn:air:acme.test:catalog:inline']);
  });

  it('stops at the fourth catalog level and reports the fifth', async () => {
    const level = (n: number): string => (n === 1 ? '/.well-known/ai-catalog.json' : `/catalogs/level${n}.json`);
    for (let n = 1; n <= 5; n++) {
      site.routes[level(n)] = json(
        finalCatalog([cardEntry(`urn:air:acme.test:agent:l${n}`, site.at(`/cards/l${n}.json`)), catalogEntry(`urn:air:acme.test:catalog:l${n + 1}`, site.at(level(n + 1)))]),
      );
      site.routes[`/cards/l${n}.json`] = json(aiCard(`urn:air:acme.test:agent:l${n}`));
    }

    const { report } = await site.crawl();

    expect(identifiers(report).filter((id) => id.includes(':agent:'))).toEqual([1, 2, 3, 4].map((n) => `urn:air:acme.test:agent:l${n}`));
    expect(problem(report, 'CATALOG_TOO_DEEP')).toEqual(expect.objectContaining({ url: site.at(level(4)), pointer: '/entries/1' }));
    expect(site.server.requests.some((request) => request.path === level(5))).toBe(false);
  });

  it('refuses a document over the size bound and keeps the rest of the crawl', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(
      finalCatalog([cardEntry('urn:air:acme.test:agent:small', site.at('/cards/small.json')), cardEntry('urn:air:acme.test:agent:huge', site.at('/cards/huge.json'))]),
    );
    site.routes['/cards/small.json'] = json(aiCard('urn:air:acme.test:agent:small'));
    site.routes['/cards/huge.json'] = json(aiCard('urn:air:acme.test:agent:huge', { description: 'x'.repeat(8000) }));

    const { report } = await site.crawl(undefined, { limits: { maxBytesPerDocument: 4096 } });

    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:small']);
    expect(report.problems).toEqual([expect.objectContaining({ url: site.at('/cards/huge.json'), code: 'FETCH_TOO_LARGE' })]);
  });

  it('refuses a redirect to a loopback address that is not admitted (only the test server itself, 127.0.0.1, is)', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(
      finalCatalog([
        cardEntry('urn:air:acme.test:agent:ok', site.at('/cards/ok.json')),
        cardEntry('urn:air:acme.test:agent:v4', site.at('/cards/to-loopback-v4.json')),
        cardEntry('urn:air:acme.test:agent:v6', site.at('/cards/to-loopback-v6.json')),
      ]),
    );
    site.routes['/cards/ok.json'] = json(aiCard('urn:air:acme.test:agent:ok'));
    site.routes['/cards/to-loopback-v4.json'] = { status: 302, headers: { location: `https://127.0.0.2:${site.server.port}/cards/ok.json` } };
    site.routes['/cards/to-loopback-v6.json'] = { status: 307, headers: { location: `https://[::1]:${site.server.port}/cards/ok.json` } };

    const { report } = await site.crawl();

    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:ok']);
    expect(report.problems.map((found) => [found.url, found.code])).toEqual([
      [site.at('/cards/to-loopback-v4.json'), 'FETCH_ADDRESS_REFUSED'],
      [site.at('/cards/to-loopback-v6.json'), 'FETCH_ADDRESS_REFUSED'],
    ]);
  });

  it('refuses the source itself when its host resolves to loopback and nothing admits it', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog([cardEntry('urn:air:acme.test:agent:ok', site.at('/cards/ok.json'))]));

    const { report } = await site.crawl(undefined, { fetcher: { admitAddressForTests: () => false } });

    expect(report.records).toEqual([]);
    expect(report.problems.map((found) => [found.url, found.code])).toEqual([
      [`${site.origin}/`, 'DISCOVERY_NO_CATALOG'],
      [`${site.origin}/`, 'FETCH_ADDRESS_REFUSED'],
      [site.at('/.well-known/ai-catalog.json'), 'FETCH_ADDRESS_REFUSED'],
      [site.at('/.well-known/ard.json'), 'FETCH_ADDRESS_REFUSED'],
    ]);
  });

  it('keeps what finished when a slow server hits the crawl deadline, and tombstones nothing it could not read', async () => {
    site.routes['/.well-known/ai-catalog.json'] = json(
      finalCatalog([cardEntry('urn:air:acme.test:agent:fast', site.at('/cards/fast.json')), cardEntry('urn:air:acme.test:agent:slow', site.at('/cards/slow.json'))]),
    );
    site.routes['/cards/fast.json'] = json(aiCard('urn:air:acme.test:agent:fast'));
    site.routes['/cards/slow.json'] = { headDelayMs: 60_000, body: JSON.stringify(aiCard('urn:air:acme.test:agent:slow')) };

    const { report, nextState } = await site.crawl(undefined, { limits: { deadlineMs: 3000 }, fetcher: { headerTimeoutMs: 120_000, timeoutMs: 120_000 } });

    expect(identifiers(report)).toEqual(['urn:air:acme.test:agent:fast']);
    expect(report.problems).toEqual([expect.objectContaining({ url: site.at('/cards/slow.json'), code: 'CRAWL_DEADLINE' })]);
    expect(nextState.listed).toEqual(['urn:air:acme.test:agent:fast', 'urn:air:acme.test:agent:slow']);
  });

  it('bounds documents per crawl and entries per catalog, reporting each bound it applied', async () => {
    const entries = [1, 2, 3, 4].map((n) => cardEntry(`urn:air:acme.test:agent:n${n}`, site.at(`/cards/n${n}.json`)));
    site.routes['/.well-known/ai-catalog.json'] = json(finalCatalog(entries));
    for (let n = 1; n <= 4; n++) site.routes[`/cards/n${n}.json`] = json(aiCard(`urn:air:acme.test:agent:n${n}`));

    const capped = await site.crawl(undefined, { limits: { maxEntriesPerCatalog: 2 } });
    expect(identifiers(capped.report)).toEqual(['urn:air:acme.test:agent:n1', 'urn:air:acme.test:agent:n2']);
    expect(problem(capped.report, 'CATALOG_TOO_MANY_ENTRIES')?.pointer).toBe('/entries');
    // Entries past the cap are still listed: a cap never makes anything gone.
    expect(capped.nextState.listed).toHaveLength(4);

    // Discovery takes three documents (ai-catalog.json, ard.json, the source page); one card fits after them.
    const limited = await site.crawl(undefined, { limits: { maxDocumentsPerCrawl: 4, concurrency: 1 } });
    expect(limited.report.records).toHaveLength(1);
    expect(limited.report.problems.filter((found) => found.code === 'CRAWL_DOCUMENT_LIMIT')).toHaveLength(3);
  });
});
