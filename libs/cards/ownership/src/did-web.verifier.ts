/**
 * The did:web ownership proof for real (CARDS.md §5 "did:web signature", keys per §3.3): the publisher signs the
 * challenge text as a detached compact JWS with a key listed under `assertionMethod` of `did:web:<domain>`.
 *
 * - payload: the UTF-8 bytes of `challengeText(token)`, i.e. `trustmesh-verification=<token>`, nothing else;
 * - protected header: `{"alg":"ES256","typ":"trustmesh-ownership+jws","kid":"did:web:<domain>#<fragment>"}`
 *   (EdDSA over Ed25519 also accepted); the exact `typ` keeps a card or manifest signature from counting as a proof.
 * Header, kid and key-resolution checks are those of @trustmesh/cards-signatures, not repeated here.
 */
import { verifyDetachedPayloadSignature, type KeyDocumentResolver, type SignatureAlg } from '@trustmesh/cards-signatures';

import type { DidWebChallengeVerifier, DidWebVerification } from './did-web.proof';

export const OWNERSHIP_JWS_TYP = 'trustmesh-ownership+jws';
const OWNERSHIP_ALGS: readonly SignatureAlg[] = ['ES256', 'EdDSA'];

export interface DidWebChallengeVerifierOptions {
  readonly now?: () => Date;
}

/**
 * A verifier of the JWS the publisher submitted for this check, keys fetched through `resolver` (in production
 * `jsonDocumentResolver(new SafeFetcher())` of @trustmesh/cards-fetcher; no cache, so a proof sees the current did.json).
 */
export function didWebChallengeVerifier(resolver: KeyDocumentResolver, submittedJws: string, options: DidWebChallengeVerifierOptions = {}): DidWebChallengeVerifier {
  return async ({ did, challenge }): Promise<DidWebVerification> => {
    const result = await verifyDetachedPayloadSignature(submittedJws, {
      payload: new TextEncoder().encode(challenge),
      typ: OWNERSHIP_JWS_TYP,
      signer: did,
      resolver,
      algs: OWNERSHIP_ALGS,
      ...(options.now ? { now: options.now() } : {}),
    });
    if (result.verified) return { valid: true, kid: result.kid };
    return { valid: false, reason: result.code === 'KEY_DOCUMENT_UNAVAILABLE' ? 'unavailable' : 'invalid', message: `${result.code}: ${result.message}` };
  };
}
