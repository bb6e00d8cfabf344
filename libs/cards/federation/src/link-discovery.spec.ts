import { htmlLinkTargets } from './html-link.scanner';
import { linkTargets, parseLinkHeader } from './link-header.parser';

describe('Link header (RFC 8288)', () => {
  const base = 'https://acme.test/products/index.html';

  it('reads several link-values, with commas inside targets and quoted parameters', () => {
    const links = parseLinkHeader('<https://acme.test/a,b.json>; rel="ai-catalog"; title="x, y", </style.css>; rel=stylesheet');
    expect(links).toEqual([
      { target: 'https://acme.test/a,b.json', params: { rel: 'ai-catalog', title: 'x, y' }, rels: ['ai-catalog'] },
      { target: '/style.css', params: { rel: 'stylesheet' }, rels: ['stylesheet'] },
    ]);
  });

  it('resolves relative targets against the response URL and matches rel case-insensitively among several types', () => {
    const header = '</catalogs/main.json>; rel="Alternate AI-Catalog", <sub.json>;rel=ai-catalog, <../ard.json>; rel="ard"';
    expect(linkTargets(header, 'ai-catalog', base)).toEqual(['https://acme.test/catalogs/main.json', 'https://acme.test/products/sub.json']);
    expect(linkTargets(header, 'ard', base)).toEqual(['https://acme.test/ard.json']);
  });

  it('keeps the first rel when a link repeats it, and skips malformed values without losing the next ones', () => {
    const header = 'garbage; rel=ai-catalog, </one.json>; rel=next; rel=ai-catalog, </two.json>; rel=ai-catalog';
    expect(linkTargets(header, 'ai-catalog', base)).toEqual(['https://acme.test/two.json']);
  });

  it('finds nothing in an absent or unrelated header', () => {
    expect(linkTargets(undefined, 'ai-catalog', base)).toEqual([]);
    expect(linkTargets('</x>; rel=preload', 'ai-catalog', base)).toEqual([]);
  });
});

describe('HTML <link rel="ai-catalog">', () => {
  const page = 'https://acme.test/about/';

  it('finds links in any quoting style, resolves them, and ignores commented-out ones', () => {
    const html = `<!doctype html><html><head>
      <!-- <link rel="ai-catalog" href="/old.json"> -->
      <LINK HREF='catalog.json' REL='ai-catalog'>
      <link rel=ai-catalog href=/root.json />
      <link rel="stylesheet" href="/s.css">
      <link rel="alternate ai-catalog" href="https://other.test/c.json?a=1&amp;b=2">
      </head></html>`;
    expect(htmlLinkTargets(html, 'ai-catalog', page)).toEqual([
      'https://acme.test/about/catalog.json',
      'https://acme.test/root.json',
      'https://other.test/c.json?a=1&b=2',
    ]);
  });

  it('honours <base href> for links after it', () => {
    const html = '<base href="https://cdn.acme.test/meta/"><link rel="ard" href="ard.json">';
    expect(htmlLinkTargets(html, 'ard', page)).toEqual(['https://cdn.acme.test/meta/ard.json']);
  });
});
