/**
 * Discovery of a source's root catalogs (CARDS.md §2.3 Discovery, §5 "discovery via well-known, `Link`"):
 * - `/.well-known/ai-catalog.json` and ARD's `/.well-known/ard.json` on the source's origin, both always probed and
 *   both optional (a 404 there means "none", not a problem);
 * - the source page itself: `Link` headers with `rel="ai-catalog"` or `rel="ard"` (RFC 8288, relative targets resolved
 *   against the final response URL), HTML `<link rel="ai-catalog">`/`<link rel="ard">`, or the page is a catalog.
 * Discovery is "incomplete" when the source page cannot be read (anything but a 404/410 answer); the crawler then keeps
 * the previous crawl's roots, so an outage never tombstones what a `Link` header used to point at.
 */
import { AI_CATALOG_MEDIA_TYPE } from '@trustmesh/cards-documents';
import type { CrawlSession } from './crawl.session';
import { htmlLinkTargets } from './html-link.scanner';
import { linkTargets } from './link-header.parser';

export const WELL_KNOWN_CATALOG_PATH = '/.well-known/ai-catalog.json';
export const WELL_KNOWN_ARD_PATH = '/.well-known/ard.json';

export interface DiscoveredRoot {
  readonly url: string;
  /** Found as ARD (`ard.json` or `rel="ard"`). */
  readonly ard: boolean;
  /** A probe, not a pointer someone published: its absence (404/410) is not a problem. */
  readonly optional: boolean;
}

export interface Discovery {
  readonly roots: DiscoveredRoot[];
  readonly complete: boolean;
}

const PAGE_ACCEPT = `text/html, ${AI_CATALOG_MEDIA_TYPE}, application/json;q=0.9, */*;q=0.1`;

export async function discoverRoots(sourceUrl: string, session: CrawlSession): Promise<Discovery> {
  const origin = new URL(sourceUrl).origin;
  const roots: DiscoveredRoot[] = [];
  const add = (root: DiscoveredRoot): void => {
    const index = roots.findIndex((known) => known.url === root.url);
    if (index < 0) roots.push(root);
    else roots[index] = { url: root.url, ard: root.ard || (roots[index]?.ard ?? false), optional: root.optional && (roots[index]?.optional ?? true) };
  };
  add({ url: `${origin}${WELL_KNOWN_CATALOG_PATH}`, ard: false, optional: true });
  add({ url: `${origin}${WELL_KNOWN_ARD_PATH}`, ard: true, optional: true });
  if (roots.some((root) => root.url === sourceUrl)) return { roots, complete: true };

  const page = await session.load(sourceUrl, { conditional: false, accept: PAGE_ACCEPT });
  if (!page.ok) {
    // A page that does not exist names no catalog: a definite answer, and DISCOVERY_NO_CATALOG covers a bare host.
    if (page.failure.status === 404 || page.failure.status === 410) return { roots, complete: true };
    session.problem(
      sourceUrl,
      page.failure.error,
      `The source page could not be read (${page.failure.message ?? page.failure.error}); catalogs found by earlier crawls are kept, not tombstoned.`,
    );
    return { roots, complete: false };
  }
  const { response } = page;
  const header = response.headers['link'];
  for (const url of linkTargets(header, 'ai-catalog', response.url)) add({ url, ard: false, optional: false });
  for (const url of linkTargets(header, 'ard', response.url)) add({ url, ard: true, optional: false });
  const mediaType = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') {
    const html = new TextDecoder('utf-8').decode(response.bytes);
    for (const url of htmlLinkTargets(html, 'ai-catalog', response.url)) add({ url, ard: false, optional: false });
    for (const url of htmlLinkTargets(html, 'ard', response.url)) add({ url, ard: true, optional: false });
  } else if (mediaType === AI_CATALOG_MEDIA_TYPE || mediaType === 'application/json') {
    // The source URL names a catalog itself: the crawler reuses this response (one fetch per URL and crawl).
    add({ url: sourceUrl, ard: false, optional: false });
  }
  return { roots, complete: true };
}
