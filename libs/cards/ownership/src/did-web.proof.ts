/**
 * Proof by did:web signature (CARDS.md §5, §3.3 key resolution): the publisher signs the challenge text
 * `trustmesh-verification=<token>` with a key listed under `assertionMethod` of `did:web:<domain>`. This module
 * defines the verifier contract and turns its answer into a ProofOutcome; `didWebChallengeVerifier`
 * (did-web.verifier.ts) is the real verifier, on the signatures library.
 */
import { challengeText } from './challenge-token';
import type { ProofCheck, ProofOutcome } from './ownership.types';

export type DidWebVerification =
  | { readonly valid: true; readonly kid: string }
  /** `unavailable`: the DID document could not be fetched (retry later); `invalid`: the signature does not verify. */
  | { readonly valid: false; readonly reason: 'invalid' | 'unavailable'; readonly message: string };

/** Checks that `did` signed `challenge`; the caller binds it to the signature the publisher submitted. */
export type DidWebChallengeVerifier = (request: { readonly did: string; readonly challenge: string }) => Promise<DidWebVerification>;

export function didWebProof(verifier: DidWebChallengeVerifier, now: () => Date = () => new Date()): ProofCheck {
  return async (domain, token): Promise<ProofOutcome> => {
    const did = `did:web:${domain}`;
    let verdict: DidWebVerification;
    try {
      verdict = await verifier({ did, challenge: challengeText(token) });
    } catch {
      verdict = { valid: false, reason: 'unavailable', message: 'the signature could not be checked' };
    }
    if (verdict.valid) return { ok: true, method: 'did-web', checkedAt: now().toISOString(), grantsSubdomains: false };
    return {
      ok: false,
      method: 'did-web',
      code: verdict.reason === 'unavailable' ? 'OWNERSHIP_DID_UNAVAILABLE' : 'OWNERSHIP_DID_SIGNATURE_INVALID',
      message: `${did}: ${verdict.message}`,
    };
  };
}
