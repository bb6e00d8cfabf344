/**
 * A card identifier's namespace: the domain that must be granted to a publisher before it may publish
 * under that identifier (CARDS.md §5, "Namespace = domain"). Identifiers are compared as plain strings
 * everywhere (§3.7: never through `new URL()`); only the domain is lower-cased, since DNS names are.
 *
 * Forms understood: `did:web:{domain}[:path]` (a `%3A`-encoded port is dropped), `urn:air:{domain}:…`,
 * `https://{domain}/…` and `spiffe://{trust-domain}/…`, and an MCP reverse-DNS name `com.example/name`
 * (whose namespace is `example.com`). `@trustmesh/cards-namespaces` will own this once it lands.
 */

/** Longest identifier accepted anywhere (paths and documents). */
export const MAX_IDENTIFIER_LENGTH = 512;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^(?:${LABEL}\\.)+${LABEL}$`);
const MCP_NAME = /^([a-zA-Z0-9.-]+)\/[a-zA-Z0-9._-]+$/;

/** Whether `value` is a lower-case DNS name of at least two labels (what a namespace grant names); an IPv4 address is not. */
export function isDomain(value: string): boolean {
  return value.length <= 253 && DOMAIN.test(value) && !/\.\d+$/.test(value);
}

function domainOrNull(candidate: string): string | null {
  const domain = candidate.toLowerCase();
  return isDomain(domain) ? domain : null;
}

/** The namespace (domain) of `identifier`, or null when its form names none. */
export function namespaceOfIdentifier(identifier: string): string | null {
  if (identifier.length === 0 || identifier.length > MAX_IDENTIFIER_LENGTH) return null;
  if (identifier.startsWith('did:web:')) {
    const host = identifier.slice('did:web:'.length).split(':')[0] ?? '';
    return domainOrNull(host.replace(/%3a\d+$/i, ''));
  }
  if (identifier.startsWith('urn:air:')) return domainOrNull(identifier.slice('urn:air:'.length).split(':')[0] ?? '');
  for (const scheme of ['https://', 'spiffe://']) {
    if (identifier.startsWith(scheme)) {
      const authority = identifier.slice(scheme.length).split(/[/?#]/)[0] ?? '';
      if (authority.includes('@')) return null;
      return domainOrNull(authority.replace(/:\d+$/, ''));
    }
  }
  const mcp = MCP_NAME.exec(identifier);
  if (mcp?.[1]) return domainOrNull(mcp[1].split('.').reverse().join('.'));
  return null;
}
