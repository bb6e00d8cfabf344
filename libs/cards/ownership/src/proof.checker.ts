/**
 * One entry point for the three ownership proofs (CARDS.md §5): validates the domain and token, then runs the chosen
 * method with its injected dependencies. The domain must already be canonical (lowercase A-labels, as
 * `parseNamespace` of @trustmesh/cards-namespaces returns it); this library does not re-derive it.
 */
import { SafeFetcher } from '@trustmesh/cards-fetcher';

import { isChallengeToken } from './challenge-token';
import type { DidWebChallengeVerifier } from './did-web.proof';
import { didWebProof } from './did-web.proof';
import { checkDnsTxtProof, createTxtLookup, type TxtLookup } from './dns-txt.proof';
import { checkHttpsFileProof } from './https-file.proof';
import type { ProofMethod, ProofOutcome } from './ownership.types';

export interface ProofDependencies {
  /** Default: `createTxtLookup()` (system resolvers, 5 s). */
  readonly txtLookup?: TxtLookup;
  /** Default: `new SafeFetcher()`. */
  readonly fetcher?: SafeFetcher;
  /** Required for `did-web`; built on the signatures library by the caller. */
  readonly didWebVerifier?: DidWebChallengeVerifier;
  readonly now?: () => Date;
  /** TEST ONLY: port of the HTTPS file server (production always uses 443). */
  readonly httpsPortForTests?: number;
}

const CANONICAL_DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.[a-z0-9-]*[a-z-][a-z0-9-]*$/;

export async function checkProof(method: ProofMethod, domain: string, token: string, deps: ProofDependencies = {}): Promise<ProofOutcome> {
  const now = deps.now ?? (() => new Date());
  if (!CANONICAL_DOMAIN.test(domain)) {
    return { ok: false, method, code: 'OWNERSHIP_DOMAIN_INVALID', message: `"${domain}" is not a canonical domain name (lowercase, A-labels, at least two labels)` };
  }
  if (!isChallengeToken(token)) {
    return { ok: false, method, code: 'OWNERSHIP_TOKEN_INVALID', message: 'the challenge token must be the 43-character base64url value the registry issued' };
  }
  switch (method) {
    case 'dns-txt':
      return checkDnsTxtProof(domain, token, deps.txtLookup ?? createTxtLookup(), now);
    case 'https-file':
      return checkHttpsFileProof(domain, token, deps.fetcher ?? new SafeFetcher(), now, deps.httpsPortForTests);
    case 'did-web':
      if (!deps.didWebVerifier) {
        return { ok: false, method, code: 'OWNERSHIP_METHOD_UNAVAILABLE', message: 'did:web proofs are not enabled on this registry' };
      }
      return didWebProof(deps.didWebVerifier, now)(domain, token);
  }
}
