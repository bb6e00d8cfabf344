/**
 * A card identifier's namespace: the domain that must be granted to a publisher before it may publish
 * under that identifier (CARDS.md §5, "Namespace = domain"), through `@trustmesh/cards-namespaces`
 * (did:web, urn:air / urn:ai, https, spiffe and MCP reverse-DNS names; canonical A-label form).
 * Identifiers themselves are compared as plain strings everywhere (§3.7: never through `new URL()`).
 */
import { namespaceOfIdentifier, parseNamespace } from '@trustmesh/cards-namespaces';

/** Longest identifier accepted anywhere (paths and documents). */
export const MAX_IDENTIFIER_LENGTH = 512;

/** The namespace (canonical domain) of `identifier`, or null when its form names none. */
export function namespaceOf(identifier: string): string | null {
  if (identifier.length === 0 || identifier.length > MAX_IDENTIFIER_LENGTH) return null;
  const resolved = namespaceOfIdentifier(identifier);
  return resolved.ok ? resolved.namespace : null;
}

/** The canonical form of a namespace an operator names (a domain), or null when it is not one. */
export function canonicalNamespace(text: string): string | null {
  const parsed = parseNamespace(text);
  return parsed.ok ? parsed.namespace : null;
}
