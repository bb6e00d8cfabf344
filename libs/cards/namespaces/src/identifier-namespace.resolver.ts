/**
 * Which namespace (domain) an identifier belongs to, i.e. which domain a publisher must prove it owns before the
 * registry lists the identifier under its name (CARDS.md §1.1 `id`, §2.3 `urn:air`, §3.4 check 6, §4.2 MCP names, §5).
 *
 * | identifier                         | namespace          |
 * |------------------------------------|--------------------|
 * | `did:web:acme.com[:path…]`         | `acme.com` (a `%3A` port is dropped: the domain owner controls every port) |
 * | `urn:air:acme.com:…`, `urn:ai:…`   | `acme.com` (both prefixes circulate, §2.3 "Still open") |
 * | `https://acme.com/…`               | `acme.com`         |
 * | `spiffe://acme.com/…`              | `acme.com` (the trust domain) |
 * | MCP `com.acme/server`              | `acme.com` (reverse-DNS); `io.github.user/x` gives `user.github.io` |
 *
 * Ownership of a namespace covers exactly that domain; subdomains only when the proof grants them (`isWithinNamespace`).
 */
import { parseNamespace, type NamespaceIssueCode, type NamespaceResult } from './namespace.parser';

export type IdentifierKind = 'did:web' | 'urn:air' | 'https' | 'spiffe' | 'mcp';

export type IdentifierNamespaceResult =
  | { readonly ok: true; readonly namespace: string; readonly kind: IdentifierKind }
  | { readonly ok: false; readonly issue: { readonly code: NamespaceIssueCode; readonly pointer: string; readonly message: string } };

const MCP_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

export function namespaceOfIdentifier(identifier: string, pointer = ''): IdentifierNamespaceResult {
  const malformed = (message: string): IdentifierNamespaceResult => ({ ok: false, issue: { code: 'NAMESPACE_IDENTIFIER_MALFORMED', pointer, message } });
  const fromDomain = (domain: string, kind: IdentifierKind): IdentifierNamespaceResult => {
    const parsed: NamespaceResult = parseNamespace(domain, pointer);
    return parsed.ok ? { ok: true, namespace: parsed.namespace, kind } : parsed;
  };

  const didWeb = /^did:web:([^:]+)(?::.*)?$/.exec(identifier);
  if (didWeb) {
    const host = decodePercent(didWeb[1] ?? '');
    if (host === null) return malformed(`"${identifier}" has a malformed percent-encoding in its domain`);
    return fromDomain(host.replace(/:\d+$/, ''), 'did:web');
  }
  if (identifier.startsWith('did:')) return unsupported(identifier, pointer, 'only did:web identifiers name a domain');

  const urn = /^urn:(air|ai):([^:]+)(?::.*)?$/i.exec(identifier);
  if (urn) return fromDomain(urn[2] ?? '', 'urn:air');
  if (identifier.toLowerCase().startsWith('urn:')) return unsupported(identifier, pointer, 'only urn:air:{domain}:… identifiers name a domain');

  const authority = /^(https|spiffe):\/\/([^/?#]*)/i.exec(identifier);
  if (authority) {
    const kind: IdentifierKind = authority[1]?.toLowerCase() === 'https' ? 'https' : 'spiffe';
    const hostPort = authority[2] ?? '';
    if (hostPort.includes('@')) return malformed(`"${identifier}" carries user information before its host`);
    if (hostPort.startsWith('[')) return malformed(`"${identifier}" names an IP address, not a domain`);
    return fromDomain(hostPort.replace(/:\d*$/, ''), kind);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(identifier)) return unsupported(identifier, pointer, 'its scheme does not name a domain');

  if (MCP_NAME.test(identifier)) {
    const reverse = identifier.slice(0, identifier.indexOf('/'));
    return fromDomain(reverse.split('.').reverse().join('.'), 'mcp');
  }
  return unsupported(identifier, pointer, 'use did:web:, urn:air:, https://, spiffe:// or an MCP name such as com.acme/server');
}

function unsupported(identifier: string, pointer: string, why: string): IdentifierNamespaceResult {
  return { ok: false, issue: { code: 'NAMESPACE_IDENTIFIER_UNSUPPORTED', pointer, message: `"${identifier}" does not name a namespace: ${why}` } };
}

function decodePercent(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * True when `domain` is inside namespace `namespace`: always when equal; a subdomain only when the proof granted
 * subdomains (`includeSubdomains`, e.g. a DNS TXT proof on the apex per the MCP Registry practice in §5). Both sides are
 * parsed first, so case and U-label/A-label spellings do not matter; anything unparsable is outside.
 */
export function isWithinNamespace(domain: string, namespace: string, options: { readonly includeSubdomains?: boolean } = {}): boolean {
  const d = parseNamespace(domain);
  const ns = parseNamespace(namespace);
  if (!d.ok || !ns.ok) return false;
  if (d.namespace === ns.namespace) return true;
  return options.includeSubdomains === true && d.namespace.endsWith(`.${ns.namespace}`);
}
