/**
 * @trustmesh/cards-ownership: proofs that a publisher owns a namespace (CARDS.md §5): DNS TXT, HTTPS well-known file,
 * did:web signed challenge; challenge tokens; how long a proof stands. Node-only. Test DNS server in ./testing.
 */
export { checkProof, type ProofDependencies } from './proof.checker';
export { createChallengeToken, isChallengeToken, challengeText } from './challenge-token';
export { checkDnsTxtProof, createTxtLookup, dnsChallengeName, DNS_CHALLENGE_LABEL, type TxtLookup, type TxtLookupOptions } from './dns-txt.proof';
export { checkHttpsFileProof, wellKnownAuthUrl, WELL_KNOWN_AUTH_PATH, AUTH_FILE_MAX_BYTES, AUTH_FILE_TIMEOUT_MS } from './https-file.proof';
export { didWebChallengeVerifier, OWNERSHIP_JWS_TYP, type DidWebChallengeVerifierOptions } from './did-web.verifier';
export { didWebProof, type DidWebChallengeVerifier, type DidWebVerification } from './did-web.proof';
export { proofStatus, proofRecordFrom, DEFAULT_PROOF_POLICY, type ProofPolicy, type ProofRecord, type ProofStatus } from './proof-status.policy';
export { OWNERSHIP_ISSUE_CODES, type OwnershipIssueCode, type ProofCheck, type ProofMethod, type ProofOutcome } from './ownership.types';
