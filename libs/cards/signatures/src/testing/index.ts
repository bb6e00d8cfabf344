/**
 * @trustmesh/cards-signatures/testing: signers for tests elsewhere (the registry app's suites): fresh keys,
 * did:web documents and resolvers, and detached signatures over each kind of signed document.
 */
export {
  didWebDocument,
  didWebResolver,
  generateSigningKey,
  signA2aCard,
  signAiCard,
  signCatalog,
  signDetachedPayload,
  signTrustManifest,
  type HeaderOverrides,
  type SignatureObjectOptions,
  type TestSigningKey,
  type VerificationRelationship,
} from './signing.fixtures';
