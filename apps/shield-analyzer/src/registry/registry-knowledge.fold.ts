/**
 * The Shield's fold of the card registry's facts (`registry.cards.v1`, @trustmesh/cards-registry-events) and
 * what a consult reads from them (`RegistryKnowledge`). Pure: the projection stores what `foldCard` returns,
 * and `registryKnowledgeOf` decides, at the consult's time, whether the namespace's proof stands and the card
 * is verified (CARDS.md §5: a card is verified when its latest revision's signature verified by
 * `did:web:<namespace>` and the namespace's proof stands for its current holder).
 *
 * Bounds: a card keeps the facts of its newest `MAX_REVISIONS` revisions (each with at most 8 endpoints), a
 * name of at most 200 characters; a namespace at most `MAX_LOOKALIKES` look-alike flags.
 */
import { cardEndpoints, latestRevision, type CardStatus, type LookalikeFlag, type RegistryCardEvent } from '@trustmesh/cards-registry-events';
import type { RegistryCardFacts, RegistryKnowledge } from '@trustmesh/shield-records';

export const MAX_REVISIONS = 64;
export const MAX_LOOKALIKES = 16;
const MAX_NAME = 200;
const MAX_REASON = 200;

export interface RevisionFacts {
  revision: string;
  status: CardStatus;
  /** Epoch milliseconds of an AI Card's `updatedAt` (CARDS.md §2.3 ordering). */
  updatedAtMs?: number;
  /** The namespace stream's version of its publication: the order of publishing. */
  publishedVersion: number;
  signature?: { verified: boolean; signer?: string };
  endpoints: string[];
}

export interface CardFacts {
  identifier: string;
  namespace: string;
  kind: string;
  name: string | null;
  renamedTo: string | null;
  revisions: RevisionFacts[];
}

export interface NamespaceFacts {
  namespace: string;
  publisherId: string | null;
  proof: { publisherId: string; method: string; verifiedAt: string; expiresAt: string; lapsedAt: string | null } | null;
  lookalikeOf: LookalikeFlag[];
}

type CardEvent = Extract<RegistryCardEvent, { type: 'CardRevisionPublished' | 'CardStatusChanged' | 'CardRenamed' | 'CardSignatureRechecked' }>;

export const isCardEvent = (event: RegistryCardEvent): event is CardEvent =>
  event.type === 'CardRevisionPublished' || event.type === 'CardStatusChanged' || event.type === 'CardRenamed' || event.type === 'CardSignatureRechecked';

/** The identifier whose row a card event changes (a rename changes the old identifier's). */
export function cardOfEvent(event: CardEvent): string {
  return event.type === 'CardRenamed' ? event.data.from : event.data.identifier;
}

/** Folds one card event (at namespace stream version `version`) into the card's facts; null when it has none yet. */
export function foldCard(card: CardFacts | null, event: CardEvent, version: number): CardFacts | null {
  if (event.type === 'CardRevisionPublished') {
    const data = event.data;
    const base: CardFacts = card ?? { identifier: data.identifier, namespace: data.namespace, kind: data.kind, name: null, renamedTo: null, revisions: [] };
    if (base.revisions.some((known) => known.revision === data.revision)) return base;
    const updatedAtMs = data.kind === 'ai-card' && data.summary.updatedAt ? Date.parse(data.summary.updatedAt) : Number.NaN;
    const revision: RevisionFacts = {
      revision: data.revision,
      status: data.status,
      publishedVersion: version,
      endpoints: cardEndpoints(data.content),
      ...(Number.isNaN(updatedAtMs) ? {} : { updatedAtMs }),
      ...(data.signature ? { signature: signatureFacts(data.signature) } : {}),
    };
    return { ...base, name: data.summary.name.slice(0, MAX_NAME) || base.name, revisions: [...base.revisions, revision].slice(-MAX_REVISIONS) };
  }
  if (!card) return null;
  switch (event.type) {
    case 'CardStatusChanged': {
      const { revision, status } = event.data;
      const revisions = card.revisions.map((known) => (known.status !== 'deleted' && (revision === null || known.revision === revision) ? { ...known, status } : known));
      return { ...card, revisions };
    }
    case 'CardRenamed':
      return { ...card, renamedTo: event.data.to };
    case 'CardSignatureRechecked': {
      const signature = signatureFacts(event.data.signature);
      return { ...card, revisions: card.revisions.map((known) => (known.revision === event.data.revision ? { ...known, signature } : known)) };
    }
  }
}

function signatureFacts(signature: { verified: boolean; signer?: string }): { verified: boolean; signer?: string } {
  return { verified: signature.verified, ...(signature.signer !== undefined ? { signer: signature.signer } : {}) };
}

/** Adds look-alike flags (each namespace once, bounded). */
export function flagLookalikes(known: readonly LookalikeFlag[], flags: readonly LookalikeFlag[]): LookalikeFlag[] {
  const merged = [...known];
  for (const flag of flags) {
    if (merged.length >= MAX_LOOKALIKES) break;
    if (!merged.some((entry) => entry.namespace === flag.namespace)) merged.push({ namespace: flag.namespace, reason: flag.reason.slice(0, MAX_REASON) });
  }
  return merged;
}

function ownershipProof(namespace: NamespaceFacts | null, now: Date): RegistryKnowledge['ownershipProof'] {
  const proof = namespace?.proof;
  if (!namespace || !proof || proof.publisherId !== namespace.publisherId) return 'none';
  if (proof.lapsedAt !== null) return 'lapsed';
  return now.getTime() < Date.parse(proof.expiresAt) ? 'verified' : 'expired';
}

function cardFacts(card: CardFacts, proofStands: boolean): RegistryCardFacts {
  const latest = latestRevision(card.revisions);
  const status: CardStatus = latest?.status ?? (card.revisions.some((revision) => revision.status === 'yanked') ? 'yanked' : 'deleted');
  // With no visible revision, the newest one still says where the withdrawn card lived.
  const shown = latest ?? card.revisions[card.revisions.length - 1];
  const signature = latest?.signature;
  return {
    identifier: card.identifier,
    ...(card.name ? { name: card.name } : {}),
    status,
    ...(latest ? { latestRevision: latest.revision } : {}),
    verified: proofStands && signature?.verified === true && signature.signer === `did:web:${card.namespace}`,
    endpoints: shown?.endpoints ?? [],
    ...(card.renamedTo ? { renamedTo: card.renamedTo } : {}),
  };
}

/** The endpoints a card is reached at now (its latest visible revision's, else its newest revision's): the lookup keys by URL. */
export function currentEndpoints(card: CardFacts): string[] {
  return cardFacts(card, false).endpoints;
}

export interface KnowledgeSources {
  matchedBy: RegistryKnowledge['matchedBy'];
  namespace: string;
  facts: NamespaceFacts | null;
  publisherName: string | null;
  card: CardFacts | null;
}

/** What the analysis reads, at `now`. */
export function registryKnowledgeOf(sources: KnowledgeSources, now: Date): RegistryKnowledge {
  const proof = ownershipProof(sources.facts, now);
  const publisherId = sources.facts?.publisherId ?? null;
  return {
    matchedBy: sources.matchedBy,
    namespace: sources.namespace,
    ...(publisherId !== null ? { publisher: { publisherId, ...(sources.publisherName !== null ? { displayName: sources.publisherName } : {}) } } : {}),
    ownershipProof: proof,
    lookalikeOf: sources.facts?.lookalikeOf ?? [],
    ...(sources.card ? { card: cardFacts(sources.card, proof === 'verified') } : {}),
  };
}
