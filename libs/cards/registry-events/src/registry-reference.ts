/**
 * How a reference to a counterparty (SHIELD.md §3 `counterparty.reference`, 1–200 characters) names something
 * the registry knows, as CARDS.md defines identities: a card by its identifier (compared as a plain string,
 * §3.7: never normalised through `new URL()`), a card by one of its endpoint URLs (plain string too), or a
 * namespace (a domain, canonical lowercase A-label), either given bare or as the namespace of an identifier.
 * Exact matches only: a reference that is merely close to a registered name matches nothing here (look-alikes
 * are the registry's own finding, carried by its flags).
 */
import { namespaceOfIdentifier, parseNamespace } from '@trustmesh/cards-namespaces';

/** Longest reference looked up (the Shield's own bound on `counterparty.reference` is 200). */
export const MAX_REGISTRY_REFERENCE_LENGTH = 512;

export interface RegistryReferenceKeys {
  /** The reference as a card identifier or endpoint URL (trimmed, otherwise exact). */
  exact: string;
  /** The canonical namespace the reference names or belongs to, when it names one. */
  namespace: string | null;
}

/** The lookup keys of `reference`, or null when it cannot name a registry record. */
export function registryReferenceKeys(reference: string): RegistryReferenceKeys | null {
  const exact = reference.trim();
  if (exact.length === 0 || exact.length > MAX_REGISTRY_REFERENCE_LENGTH) return null;
  const bare = parseNamespace(exact);
  if (bare.ok) return { exact, namespace: bare.namespace };
  const owned = namespaceOfIdentifier(exact);
  return { exact, namespace: owned.ok ? owned.namespace : null };
}
