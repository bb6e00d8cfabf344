/**
 * Runs an ownership proof (CARDS.md §5 "Proof by DNS TXT, HTTPS well-known file or did:web signature") with
 * `@trustmesh/cards-ownership` over the registry's network (trust-network.ts): the TXT lookup, SafeFetcher
 * for the well-known file, and for did:web the library's `didWebChallengeVerifier` over the JWS the publisher
 * submitted (`proof`: a detached compact JWS, `typ` `trustmesh-ownership+jws`, over `trustmesh-verification=
 * <token>`, by a key under `assertionMethod` of `did:web:<domain>`), the did.json fetched fresh through
 * SafeFetcher.
 */
import { checkProof, didWebChallengeVerifier, type ProofOutcome } from '@trustmesh/cards-ownership';

import type { OwnershipMethod } from '../domain/namespace-trust';
import type { TrustNetwork } from './trust-network';

/** Largest did:web proof accepted (a compact JWS with a P-256 or Ed25519 signature is far smaller). */
export const MAX_PROOF_LENGTH = 4096;

export type ProofRunner = (method: OwnershipMethod, domain: string, token: string, proof?: string) => Promise<ProofOutcome>;

export function ownershipProofRunner(network: TrustNetwork, now: () => Date): ProofRunner {
  return (method, domain, token, proof) =>
    checkProof(method, domain, token, {
      txtLookup: network.txtLookup,
      fetcher: network.fetcher,
      // Without a submitted JWS there is nothing to verify: the library answers OWNERSHIP_METHOD_UNAVAILABLE.
      ...(proof !== undefined ? { didWebVerifier: didWebChallengeVerifier(network.recordingResolver().resolver, proof, { now }) } : {}),
      now,
      ...(network.httpsPortForTests !== undefined ? { httpsPortForTests: network.httpsPortForTests } : {}),
    });
}
