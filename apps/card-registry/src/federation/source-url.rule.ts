/**
 * Which URLs an operator may add as a federation source (CARDS.md §5 "Federation and crawling", §3.3 "Safe
 * fetching"): an absolute `https:` URL of a host (its catalogs are discovered) or of a catalog, at most 2048
 * characters, without credentials or a fragment, and not an IP literal of a refused class (loopback, private,
 * metadata...). Host names are checked again at every fetch by the SafeFetcher (DNS answers, every redirect hop):
 * this rule only refuses what can never be crawled, early and with a message the operator can act on.
 */
import { classifyAddress, isIpLiteral } from '@trustmesh/cards-fetcher';

export const MAX_SOURCE_URL_LENGTH = 2048;

export type SourceUrlVerdict = { ok: true; url: string } | { ok: false; code: string; message: string };

export function checkSourceUrl(text: string): SourceUrlVerdict {
  if (text.length === 0 || text.length > MAX_SOURCE_URL_LENGTH) return { ok: false, code: 'SOURCE_URL_TOO_LONG', message: `url must be 1-${MAX_SOURCE_URL_LENGTH} characters` };
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { ok: false, code: 'SOURCE_URL_INVALID', message: 'url must be an absolute URL such as https://acme.example' };
  }
  if (parsed.protocol !== 'https:') return { ok: false, code: 'SOURCE_URL_NOT_HTTPS', message: 'Sources are crawled over https: only' };
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, code: 'SOURCE_URL_CREDENTIALS', message: 'A source URL must not carry credentials' };
  if (parsed.hash !== '' || text.includes('#')) return { ok: false, code: 'SOURCE_URL_FRAGMENT', message: 'A source URL must not carry a fragment' };
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIpLiteral(host)) {
    const verdict = classifyAddress(host);
    if (verdict.class !== 'public') return { ok: false, code: 'SOURCE_ADDRESS_REFUSED', message: `The source names a ${verdict.class} address, which is never crawled` };
  }
  // The URL parser's form (lower-case host, default port dropped): the same source added twice is found again.
  return { ok: true, url: parsed.href };
}
