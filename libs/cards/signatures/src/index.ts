/**
 * @trustmesh/cards-signatures: verification of AI Card, AI Catalog and A2A AgentCard signatures
 * (CARDS.md §3). Results are values with stable codes; nothing here throws on hostile input. Keys come only
 * through an injected `KeyDocumentResolver`. Pure TypeScript (WebCrypto through `jose`); no I/O of its own.
 */
export { ALL_SIGNATURE_CODES, type SignatureAlg, type SignatureCode, type SignatureRejected, type SignatureResult, type SignatureVerified } from './signature.codes';
export { MAX_PROTECTED_HEADER_CHARS, type SignedObjectKind } from './jws.header';
export { didWebDocumentUrl, mapResolver, type KeyDocumentResolver, type KeySource } from './key.resolution';
export { verifyDetachedPayloadSignature, type DetachedPayloadVerifyOptions } from './detached-payload.verify';
export { aiCardSigner, verifyAiCardSignature, type AiCardVerifyOptions, type RegisteredKey } from './ai-card.verify';
export {
  DEFAULT_ALLOWED_PROFILES,
  DEFAULT_CLOCK_SKEW_SECONDS,
  DID_WEB_EDDSA_PROFILE,
  DID_WEB_V1_PROFILE,
  PROFILE_ALGORITHMS,
  rfc3339Instant,
  type SignedObjectPolicy,
} from './signature-object.check';
export {
  isPublisherSigner,
  verifyCatalogSignature,
  verifyTrustManifest,
  type SignedObjectVerifyOptions,
  type TrustManifestResult,
  type TrustManifestVerifyOptions,
} from './signed-object.verify';
export { selectNewestReleases, type ManifestCandidate, type ReleaseSelection } from './release.selection';
export { a2aSigningPayload } from './a2a.canonical';
export { MAX_A2A_SIGNATURES, verifyA2aCardSignatures, type A2aSignaturesResult, type A2aVerifyOptions } from './a2a.verify';
