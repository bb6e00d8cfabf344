/**
 * What the registry knows about trust in a namespace (CARDS.md §5 "Ownership verification", "Signature
 * verification"; §3.6 "Registry rules"): the standing ownership proof (method, when verified, until when,
 * lapsed or not), the signature policy, the look-alike flags, and each revision's recorded signature
 * outcome. Events live on the namespace stream beside the card events, so a proof, a policy change and a
 * publish are decided on one state and appended race-free.
 *
 * Pure: `decide…` functions return a Decision for `NamespaceRepository.execute`, `evolveTrust` folds one
 * trust event. Our choices (README.md): a proof by another publisher of a namespace someone holds is refused
 * (409 NAMESPACE_HELD, the operator transfers); a lapsed proof keeps the holding but drops `verified`; a
 * re-proof restores it.
 */
import type { LookalikeFlag, NamespaceTrustEvent, NamespaceVerifiedData, SignaturePolicy, SignatureRecord } from '@trustmesh/cards-registry-events';

import type { Decision, NamespaceEvent, NamespaceState, Refusal } from './registry-namespace.aggregate';

// The event shapes are the shared contract of `registry.cards.v1` (@trustmesh/cards-registry-events).
export { NAMESPACE_TRUST_EVENT_TYPES, SIGNATURE_POLICIES } from '@trustmesh/cards-registry-events';
export type { LookalikeFlag, NamespaceTrustEvent, NamespaceVerifiedData, SignaturePolicy, SignatureRecord } from '@trustmesh/cards-registry-events';

export const DEFAULT_SIGNATURE_POLICY: SignaturePolicy = 'verify-if-present';

export type OwnershipMethod = 'dns-txt' | 'https-file' | 'did-web';

export interface NamespaceVerification {
  publisherId: string;
  method: OwnershipMethod;
  /** The challenge token the proof is re-checked against (public by design: it sits in DNS or a file). */
  token: string;
  /** did:web: the signed challenge, re-verified against the current DID document on each re-check. */
  proof?: string;
  verifiedAt: string;
  expiresAt: string;
  /** Set when re-checks failed past `expiresAt` (NamespaceProofLapsed); cleared by the next proof. */
  lapsed?: { at: string; code: string };
}

export interface NamespaceTrust {
  verification: NamespaceVerification | null;
  signaturePolicy: SignaturePolicy;
  lookalikes: LookalikeFlag[];
}

export const emptyTrust = (): NamespaceTrust => ({ verification: null, signaturePolicy: DEFAULT_SIGNATURE_POLICY, lookalikes: [] });

/** Folds a `NamespaceVerified` into the trust part (the aggregate folds the holding). */
export function evolveVerified(state: NamespaceState, data: NamespaceVerifiedData): void {
  if (data.expiresAt === undefined || data.token === undefined) return;
  state.trust.verification = { publisherId: data.publisherId, method: data.method as OwnershipMethod, token: data.token, ...(data.proof !== undefined ? { proof: data.proof } : {}), verifiedAt: data.verifiedAt, expiresAt: data.expiresAt };
}

/** Folds one trust event into the state, in place. */
export function evolveTrust(state: NamespaceState, event: NamespaceTrustEvent): void {
  const trust = state.trust;
  switch (event.type) {
    case 'NamespaceProofLapsed':
      if (trust.verification) trust.verification.lapsed = { at: event.data.lapsedAt, code: event.data.code };
      return;
    case 'NamespaceSignaturePolicySet':
      trust.signaturePolicy = event.data.policy;
      return;
    case 'NamespaceLookalikeFlagged':
      for (const flag of event.data.lookalikeOf) {
        if (!trust.lookalikes.some((known) => known.namespace === flag.namespace)) trust.lookalikes.push({ namespace: flag.namespace, reason: flag.reason });
      }
      return;
    case 'NamespaceLookalikeCleared':
      trust.lookalikes = trust.lookalikes.filter((flag) => flag.namespace !== event.data.lookalikeOf);
      return;
    case 'CardSignatureRechecked': {
      const revision = state.cards.get(event.data.identifier)?.revisions.find((candidate) => candidate.revision === event.data.revision);
      if (revision) revision.signature = event.data.signature;
      return;
    }
  }
}

/** Whether the namespace's ownership proof stands at `now` for its current holder. */
export function proofStands(state: NamespaceState, now: Date): boolean {
  const verification = state.trust.verification;
  if (!verification || verification.lapsed || verification.publisherId !== state.publisherId) return false;
  return now.getTime() < Date.parse(verification.expiresAt);
}

/** A card is verified when its revision's signature verified, by `did:web:<namespace>`, and the namespace's proof stands. */
export function isRevisionVerified(state: NamespaceState, signature: SignatureRecord | undefined, now: Date): boolean {
  return signature?.verified === true && signature.signer === `did:web:${state.namespace}` && proofStands(state, now);
}

const refuse = (kind: Refusal['kind'], code: string, message: string, path = ''): Decision => ({ ok: false, refusal: { kind, code, message, path } });
const accept = (...events: NamespaceEvent[]): Decision => ({ ok: true, events });

export function decideProofSucceeded(state: NamespaceState, proof: { publisherId: string; method: OwnershipMethod; token: string; proof?: string; verifiedAt: string; expiresAt: string }): Decision {
  if (state.publisherId !== null && state.publisherId !== proof.publisherId) {
    return refuse('conflict', 'NAMESPACE_HELD', `Namespace ${state.namespace} is held by another publisher; an operator can transfer it once you have proved ownership`, '/namespace');
  }
  return accept({ type: 'NamespaceVerified', data: { namespace: state.namespace, publisherId: proof.publisherId, method: proof.method, verifiedAt: proof.verifiedAt, expiresAt: proof.expiresAt, token: proof.token, ...(proof.proof !== undefined ? { proof: proof.proof } : {}) } });
}

/** A re-check failed: lapse once the proof is past its expiry (and not already lapsed); otherwise nothing. */
export function decideProofFailed(state: NamespaceState, failure: { code: string; now: Date }): Decision {
  const verification = state.trust.verification;
  if (!verification || verification.lapsed || failure.now.getTime() < Date.parse(verification.expiresAt)) return accept();
  return accept({ type: 'NamespaceProofLapsed', data: { namespace: state.namespace, publisherId: verification.publisherId, method: verification.method, code: failure.code, lapsedAt: failure.now.toISOString() } });
}

export function decideSignaturePolicy(state: NamespaceState, policy: SignaturePolicy, setBy: string, now: string): Decision {
  if (state.trust.signaturePolicy === policy) return accept();
  return accept({ type: 'NamespaceSignaturePolicySet', data: { namespace: state.namespace, policy, setBy, setAt: now } });
}

export function decideLookalikes(state: NamespaceState, found: readonly LookalikeFlag[], now: string): Decision {
  const fresh = found.filter((flag) => flag.namespace !== state.namespace && !state.trust.lookalikes.some((known) => known.namespace === flag.namespace));
  if (fresh.length === 0) return accept();
  return accept({ type: 'NamespaceLookalikeFlagged', data: { namespace: state.namespace, lookalikeOf: fresh.map((flag) => ({ namespace: flag.namespace, reason: flag.reason })), flaggedAt: now } });
}

export function decideClearLookalike(state: NamespaceState, lookalikeOf: string, clearedBy: string, now: string): Decision {
  if (!state.trust.lookalikes.some((flag) => flag.namespace === lookalikeOf)) return refuse('not_found', 'LOOKALIKE_NOT_FLAGGED', `Namespace ${state.namespace} carries no look-alike flag for ${lookalikeOf}`, '/lookalikeOf');
  return accept({ type: 'NamespaceLookalikeCleared', data: { namespace: state.namespace, lookalikeOf, clearedBy, clearedAt: now } });
}

/** A re-verification's outcome for one revision: appended only when it differs from what is stored (replicas racing agree). */
export function decideSignatureRecheck(state: NamespaceState, identifier: string, revision: string, signature: SignatureRecord): Decision {
  const stored = state.cards.get(identifier)?.revisions.find((candidate) => candidate.revision === revision)?.signature;
  if (!stored) return accept();
  if (stored.keyDigest === signature.keyDigest && stored.verified === signature.verified && stored.code === signature.code) return accept();
  return accept({ type: 'CardSignatureRechecked', data: { namespace: state.namespace, identifier, revision, signature } });
}
