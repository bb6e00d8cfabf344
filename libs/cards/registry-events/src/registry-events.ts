/**
 * The events of topic `registry.cards.v1` as their consumers read them: the contract between the card
 * registry, which appends them (namespace and publisher streams), and every context that folds them (the
 * registry's own read models, the Shield's registry knowledge). One definition, imported by both; the
 * registry's aggregate adds only what no other context reads (catalog publishes).
 *
 * Stream ids: `registry-publisher-<publisherId>` (PublisherRegistered) and `registry-namespace-<domain>`
 * (everything else here), so one namespace's events arrive in order on one partition.
 */
import type { CardStatus } from './card-revision.order';

export const REGISTRY_CARDS_TOPIC = 'registry.cards.v1';

export interface PublisherRegistered {
  publisherId: string;
  displayName: string;
  registeredAt: string;
}

/** What the registry extracted from a revision's document when it was published (`summarizeDocument`). */
export interface CardSummary {
  kind: string;
  identifier?: string;
  version?: string;
  updatedAt?: string;
  name: string;
  description: string;
  tags: string[];
  skills: string[];
  tools: string[];
  protocols: string[];
  publisher?: { identifier: string; name: string };
  maturity?: string;
}

export const SIGNATURE_POLICIES = ['off', 'verify-if-present', 'require'] as const;
export type SignaturePolicy = (typeof SIGNATURE_POLICIES)[number];

/** `namespace` imitates the verified namespace `reason` names (cards-namespaces `findLookalikes`). */
export interface LookalikeFlag {
  namespace: string;
  reason: string;
}

/** One signature's outcome as stored with a revision (and shown in reads). */
export interface SignatureRecord {
  verified: boolean;
  signer?: string;
  kid?: string;
  alg?: string;
  /** When this outcome was established (publish, or the re-verification that changed it). */
  checkedAt: string;
  /** The signature code of a failure (cards-signatures `SignatureCode`). */
  code?: string;
  pointer?: string;
  /** The key document verified against and the SHA-256 of its bytes: a changed digest triggers re-verification. */
  keyUrl?: string;
  keyDigest?: string;
  /** A2A: how many signatures the card carries. */
  signatures?: number;
}

/** `NamespaceVerified` with what a proof records (older events lack the optional members). */
export interface NamespaceVerifiedData {
  namespace: string;
  publisherId: string;
  method: string;
  verifiedAt: string;
  expiresAt?: string;
  token?: string;
  proof?: string;
}

/** Set when a revision came from a catalog publish: its id, the entry's pointer, the nested-catalog entry holding it. */
export interface CatalogOrigin {
  id: string;
  pointer: string;
  parent?: string;
}

export interface CardRevisionPublishedData {
  namespace: string;
  identifier: string;
  kind: string;
  revision: string;
  /** `sha256:<lowerhex>` of the raw bytes. */
  digest: string;
  contentType: string;
  /** The raw bytes, base64. */
  content: string;
  size: number;
  summary: CardSummary;
  status: CardStatus;
  publisherId: string;
  publishedAt: string;
  /** The signature outcome at publish; absent when the policy is off or nothing was signed. */
  signature?: SignatureRecord;
  catalog?: CatalogOrigin;
}

/** The trust events of a namespace stream: proof lapses, signature policy, look-alike flags, signature re-checks. */
export type NamespaceTrustEvent =
  | { type: 'NamespaceProofLapsed'; data: { namespace: string; publisherId: string; method: string; code: string; lapsedAt: string } }
  | { type: 'NamespaceSignaturePolicySet'; data: { namespace: string; policy: SignaturePolicy; setBy: string; setAt: string } }
  | { type: 'NamespaceLookalikeFlagged'; data: { namespace: string; lookalikeOf: LookalikeFlag[]; flaggedAt: string } }
  | { type: 'NamespaceLookalikeCleared'; data: { namespace: string; lookalikeOf: string; clearedBy: string; clearedAt: string } }
  | { type: 'CardSignatureRechecked'; data: { namespace: string; identifier: string; revision: string; signature: SignatureRecord } };

export const NAMESPACE_TRUST_EVENT_TYPES = ['NamespaceProofLapsed', 'NamespaceSignaturePolicySet', 'NamespaceLookalikeFlagged', 'NamespaceLookalikeCleared', 'CardSignatureRechecked'] as const;

/** A namespace stream's holding and card events, and its trust events. */
export type RegistryCardEvent =
  | { type: 'NamespaceGranted'; data: { namespace: string; publisherId: string; grantedAt: string } }
  | { type: 'NamespaceVerified'; data: NamespaceVerifiedData }
  | { type: 'NamespaceTransferred'; data: { namespace: string; fromPublisherId: string; toPublisherId: string; transferredAt: string } }
  | { type: 'CardRevisionPublished'; data: CardRevisionPublishedData }
  | { type: 'CardStatusChanged'; data: { namespace: string; identifier: string; revision: string | null; status: CardStatus; message?: string; publisherId: string; changedAt: string } }
  | { type: 'CardRenamed'; data: { namespace: string; from: string; to: string; publisherId: string; renamedAt: string } }
  | NamespaceTrustEvent;

export const REGISTRY_CARD_EVENT_TYPES: ReadonlySet<RegistryCardEvent['type']> = new Set<RegistryCardEvent['type']>([
  'NamespaceGranted',
  'NamespaceVerified',
  'NamespaceTransferred',
  'CardRevisionPublished',
  'CardStatusChanged',
  'CardRenamed',
  ...NAMESPACE_TRUST_EVENT_TYPES,
]);

/** The event an envelope of `registry.cards.v1` carries, or null when it is none a card consumer folds. */
export function registryCardEventOf(eventType: string, data: unknown): RegistryCardEvent | null {
  return REGISTRY_CARD_EVENT_TYPES.has(eventType as RegistryCardEvent['type']) ? ({ type: eventType, data } as RegistryCardEvent) : null;
}
