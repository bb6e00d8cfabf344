/**
 * How the registry's events are kept in the platform event store (topic `registry.cards.v1`):
 * - `registry-publisher-<publisherId>`: `PublisherRegistered` (published on the bus);
 * - `registry-namespace-<domain>`: the namespace aggregate with its cards (published on the bus);
 * - `registry-credential-<credentialId>`: `PublisherCredentialIssued` (with the secret's SHA-256) and
 *   `PublisherCredentialRevoked`, never published (`topic: null`): a digest never travels, and what
 *   authentication reads on every call, on any replica, is the stream itself (a revocation holds at once).
 */
import { REGISTRY_CARD_EVENT_TYPES } from '@trustmesh/cards-registry-events';
import { sha256Hex } from '@trustmesh/platform-credentials';

import { CATALOG_EVENT_TYPES } from '../catalogs/catalog-publish.decision';
import type { NamespaceEvent } from '../domain/registry-namespace.aggregate';

// The topic and the published event shapes are the shared contract (@trustmesh/cards-registry-events).
export { REGISTRY_CARDS_TOPIC, type PublisherRegistered } from '@trustmesh/cards-registry-events';

export const publisherStreamId = (publisherId: string) => `registry-publisher-${publisherId}`;
export const credentialStreamId = (credentialId: string) => `registry-credential-${credentialId}`;
/** Stream ids hold at most 200 characters: a long domain is named by its digest instead. */
export const namespaceStreamId = (namespace: string) => `registry-namespace-${namespace.length <= 160 ? namespace : sha256Hex(namespace)}`;

export interface PublisherCredentialIssued {
  credentialId: string;
  publisherId: string;
  /** SHA-256 of the secret part, hex. */
  secretSha256: string;
  label?: string;
  issuedAt: string;
}

export interface PublisherCredentialRevoked {
  credentialId: string;
  publisherId: string;
  revokedAt: string;
}

export const NAMESPACE_EVENT_TYPES: ReadonlySet<string> = new Set<string>([...REGISTRY_CARD_EVENT_TYPES, ...CATALOG_EVENT_TYPES]);

export const toStored = (event: NamespaceEvent) => ({ eventType: event.type, data: event.data });
export const fromStored = (eventType: string, data: unknown) => ({ type: eventType, data }) as NamespaceEvent;
