/**
 * @trustmesh/cards-registry-events: the contract of topic `registry.cards.v1` (the card registry's events, as
 * every consumer folds them), which revision of a card is the latest, and how a reference names a registered
 * card or namespace. Pure TypeScript; runs in browsers and Node.
 */
export {
  REGISTRY_CARDS_TOPIC,
  REGISTRY_CARD_EVENT_TYPES,
  NAMESPACE_TRUST_EVENT_TYPES,
  SIGNATURE_POLICIES,
  registryCardEventOf,
  type CardRevisionPublishedData,
  type CardSummary,
  type CatalogOrigin,
  type LookalikeFlag,
  type NamespaceTrustEvent,
  type NamespaceVerifiedData,
  type PublisherRegistered,
  type RegistryCardEvent,
  type SignaturePolicy,
  type SignatureRecord,
} from './registry-events';
export { CARD_STATUSES, isVisibleInLatest, latestRevision, type CardStatus, type RevisionOrderFacts } from './card-revision.order';
export { registryReferenceKeys, MAX_REGISTRY_REFERENCE_LENGTH, type RegistryReferenceKeys } from './registry-reference';
export { cardEndpoints, MAX_CARD_ENDPOINTS, MAX_ENDPOINT_LENGTH } from './card-endpoints';
