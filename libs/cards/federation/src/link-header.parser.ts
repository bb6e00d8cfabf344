/**
 * RFC 8288 `Link` header parsing for discovery (CARDS.md §2.3: `Link: <…>; rel="ai-catalog"`). A header may carry
 * several link-values separated by commas, and commas may also sit inside `<…>` or quoted strings, so the value is
 * scanned, not split. `rel` holds space-separated relation types compared case-insensitively (RFC 8288 §2.1.1);
 * targets are URI-references resolved against the URL of the response that carried them (§3.1).
 */

export interface LinkValue {
  /** The target exactly as written between `<` and `>`. */
  readonly target: string;
  /** Parameters by lower-case name; the first occurrence wins (RFC 8288 §3: later `rel`s are ignored). */
  readonly params: Readonly<Record<string, string>>;
  /** Lower-case relation types from `rel`. */
  readonly rels: readonly string[];
}

export function parseLinkHeader(header: string): LinkValue[] {
  const links: LinkValue[] = [];
  let at = 0;
  const skipSpace = (): void => {
    while (at < header.length && /[ \t]/.test(header[at] ?? '')) at++;
  };
  while (at < header.length) {
    skipSpace();
    if (header[at] === ',') {
      at++;
      continue;
    }
    if (header[at] !== '<') {
      at = nextComma(header, at);
      continue;
    }
    const close = header.indexOf('>', at + 1);
    if (close < 0) break;
    const target = header.slice(at + 1, close).trim();
    at = close + 1;
    const params: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (header[at] !== ';') break;
      at++;
      skipSpace();
      const nameMatch = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/.exec(header.slice(at));
      if (!nameMatch) break;
      const name = nameMatch[0].toLowerCase();
      at += nameMatch[0].length;
      skipSpace();
      let value = '';
      if (header[at] === '=') {
        at++;
        skipSpace();
        if (header[at] === '"') {
          const quoted = readQuoted(header, at);
          value = quoted.value;
          at = quoted.end;
        } else {
          const tokenMatch = /^[^;,\s]*/.exec(header.slice(at));
          value = tokenMatch?.[0] ?? '';
          at += value.length;
        }
      }
      if (!(name in params)) params[name] = value;
    }
    const rels = (params['rel'] ?? '').split(/[ \t]+/).filter((rel) => rel.length > 0).map((rel) => rel.toLowerCase());
    links.push({ target, params, rels });
    at = nextComma(header, at);
  }
  return links;
}

/** Absolute targets of the links with relation type `rel`, resolved against `base`; unresolvable targets are dropped. */
export function linkTargets(header: string | undefined, rel: string, base: string): string[] {
  if (header === undefined) return [];
  const wanted = rel.toLowerCase();
  const targets: string[] = [];
  for (const link of parseLinkHeader(header)) {
    if (!link.rels.includes(wanted)) continue;
    const resolved = resolveReference(link.target, base);
    if (resolved !== undefined && !targets.includes(resolved)) targets.push(resolved);
  }
  return targets;
}

export function resolveReference(reference: string, base: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

function readQuoted(text: string, start: number): { value: string; end: number } {
  let value = '';
  let at = start + 1;
  while (at < text.length && text[at] !== '"') {
    if (text[at] === '\\' && at + 1 < text.length) at++;
    value += text[at];
    at++;
  }
  return { value, end: Math.min(at + 1, text.length) };
}

/** Index just past the next comma outside `<…>` and quoted strings (the end when there is none). */
function nextComma(text: string, start: number): number {
  let at = start;
  while (at < text.length) {
    const char = text[at];
    if (char === ',') return at + 1;
    if (char === '"') at = readQuoted(text, at).end;
    else if (char === '<') at = text.indexOf('>', at) < 0 ? text.length : text.indexOf('>', at) + 1;
    else at++;
  }
  return at;
}
