/**
 * Runs an ownership proof (CARDS.md §5 "Proof by DNS TXT, HTTPS well-known file or did:web signature") with
 * `@trustmesh/cards-ownership` over the registry's network (trust-network.ts).
 *
 * did:web (our profile until a shared verifier lands): the publisher signs, with a key listed under
 * `assertionMethod` of `did:web:<domain>`, a detached compact JWS (ES256 or EdDSA, `kid` = `did:web:<domain>#…`,
 * `typ` JOSE or absent) over the RFC 8785 bytes of `{"challenge": "trustmesh-verification=<token>", "id":
 * "did:web:<domain>"}`, and sends it as `proof`. It is verified with the v1-card verifier (signer = `id`, the
 * did.json fetched through SafeFetcher), which checks exactly that payload, header and key.
 */
import { checkProof, type DidWebChallengeVerifier, type ProofOutcome } from '@trustmesh/cards-ownership';
import { verifyAiCardSignature } from '@trustmesh/cards-signatures';

import type { OwnershipMethod } from '../domain/namespace-trust';
import type { TrustNetwork } from './trust-network';

/** Largest did:web proof accepted (a compact JWS with a P-256 or Ed25519 signature is far smaller). */
export const MAX_PROOF_LENGTH = 4096;

export type ProofRunner = (method: OwnershipMethod, domain: string, token: string, proof?: string) => Promise<ProofOutcome>;

function didWebVerifier(network: TrustNetwork, now: () => Date, proof: string | undefined): DidWebChallengeVerifier {
  return async ({ did, challenge }) => {
    if (proof === undefined) return { valid: false, reason: 'invalid', message: 'send the signed challenge as "proof" (a detached compact JWS)' };
    const { resolver } = network.recordingResolver();
    const result = await verifyAiCardSignature({ challenge, id: did, signature: proof }, { resolver, now: now() });
    if (result.verified) return { valid: true, kid: result.kid };
    return { valid: false, reason: result.code === 'KEY_DOCUMENT_UNAVAILABLE' ? 'unavailable' : 'invalid', message: `${result.code}: ${result.message}` };
  };
}

export function ownershipProofRunner(network: TrustNetwork, now: () => Date): ProofRunner {
  return (method, domain, token, proof) =>
    checkProof(method, domain, token, {
      txtLookup: network.txtLookup,
      fetcher: network.fetcher,
      didWebVerifier: didWebVerifier(network, now, proof),
      now,
      ...(network.httpsPortForTests !== undefined ? { httpsPortForTests: network.httpsPortForTests } : {}),
    });
}
