/**
 * HTML `<link rel="ai-catalog" href="…">` discovery (CARDS.md §2.3 Discovery). Not an HTML parser: it scans `<link>`
 * start tags outside comments, reads their attributes (double-, single- or un-quoted, names case-insensitive, the
 * first occurrence of a name wins as in HTML), splits `rel` on whitespace and compares relation types
 * case-insensitively. `href` is resolved against the page's URL; `<base href>` is honoured when it precedes the links.
 */
import { resolveReference } from './link-header.parser';

const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const TAG = /<(link|base)(?=[\s/>])([^>]*)>/gi;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

export function htmlLinkTargets(html: string, rel: string, pageUrl: string): string[] {
  const wanted = rel.toLowerCase();
  const text = html.replace(COMMENT, '');
  const targets: string[] = [];
  let base = pageUrl;
  for (const tag of text.matchAll(TAG)) {
    const attributes = readAttributes(tag[2] ?? '');
    const href = attributes.get('href');
    if (href === undefined) continue;
    if ((tag[1] ?? '').toLowerCase() === 'base') {
      base = resolveReference(decodeEntities(href), pageUrl) ?? base;
      continue;
    }
    const rels = (attributes.get('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rels.includes(wanted)) continue;
    const resolved = resolveReference(decodeEntities(href.trim()), base);
    if (resolved !== undefined && !targets.includes(resolved)) targets.push(resolved);
  }
  return targets;
}

function readAttributes(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of source.matchAll(ATTRIBUTE)) {
    const name = (match[1] ?? '').toLowerCase();
    if (!attributes.has(name)) attributes.set(name, match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

/** The character references a URL in an attribute realistically holds. */
function decodeEntities(value: string): string {
  return value
    .replace(/&amp;/gi, '&')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#([0-9]+);/g, (_, dec: string) => String.fromCodePoint(Number.parseInt(dec, 10)));
}
