/**
 * The outcome of every signature check in this library (CARDS.md §3): a value, never an exception.
 * A rejection carries a stable machine code, a JSON pointer (RFC 6901) into the document whose signature
 * was checked, and a message a person can act on; internal error text never reaches it.
 */
export const ALL_SIGNATURE_CODES = [
  // Form (§3.1)
  /** The signature is not a detached compact JWS `b64url(header)..b64url(signature)`. */
  'JWS_MALFORMED',
  /** The compact JWS carries a payload segment; the payload must be rebuilt from the document. */
  'JWS_NOT_DETACHED',
  /** The protected header is over the size bound. */
  'JWS_HEADER_TOO_LARGE',
  /** The protected header is not base64url-encoded JSON object text (with no duplicate keys). */
  'JWS_HEADER_INVALID',
  /** The signature segment is not base64url, or has the wrong length for the algorithm. */
  'JWS_SIGNATURE_ENCODING',
  /** The document cannot be canonicalised (RFC 8785), so there is nothing to verify against. */
  'PAYLOAD_NOT_CANONICAL',
  // Headers (§3.2)
  /** `alg` is missing or not a string. */
  'JWS_ALG_MISSING',
  /** `alg: none`: an unsigned JWS. */
  'JWS_ALG_NONE',
  /** An HMAC `alg` (HS256...): a public key must never serve as a shared secret. */
  'JWS_ALG_SYMMETRIC',
  /** Any other `alg` (RS256, PS256, ES384...): not accepted by this registry. */
  'JWS_ALG_UNSUPPORTED',
  /** The `alg` is supported but not under this signature's profile (e.g. EdDSA under did-web-v1). */
  'JWS_ALG_NOT_ALLOWED_BY_PROFILE',
  /** `typ` is missing or not the exact value for this kind of object. */
  'JWS_TYP_MISMATCH',
  /** `kid` is missing, or not the exact signer, `#` and a non-empty fragment without path or query. */
  'JWS_KID_INVALID',
  /** A forbidden header parameter: jku, jwk, x5u, x5c or b64. */
  'JWS_HEADER_FORBIDDEN',
  /** `crit` names an extension this verifier does not support (or is malformed). */
  'JWS_CRIT_UNSUPPORTED',
  /** The signature does not verify over the rebuilt payload with the resolved key. */
  'SIGNATURE_INVALID',
  // Key resolution (§3.3)
  /** The signer is not a root did:web (lowercase domain, no port, IP, path or trailing dot). */
  'SIGNER_NOT_DID_WEB',
  /** No signer could be determined (v1 card: no did:web publisher.id or id, and no registered key). */
  'SIGNER_UNKNOWN',
  /** The key document (DID document, JWK Set) could not be obtained. */
  'KEY_DOCUMENT_UNAVAILABLE',
  /** The key document is not a valid DID document / JWK Set, or its `id` differs from the signer. */
  'KEY_DOCUMENT_INVALID',
  /** No verification method (or JWK) has the JWS `kid`: e.g. the key was removed. */
  'KEY_NOT_FOUND',
  /** More than one verification method (or JWK) has the JWS `kid`. */
  'KEY_AMBIGUOUS',
  /** The verification method is not listed under `assertionMethod`. */
  'KEY_NOT_ASSERTION_METHOD',
  /** The verification method's `controller` differs from the signer. */
  'KEY_CONTROLLER_MISMATCH',
  /** The public key is not usable: wrong kty/crv for the alg, bad coordinates, private parts, alg/use/key_ops. */
  'KEY_INVALID',
  // Acceptance (§3.4)
  /** The Signature object is missing members or has members of the wrong type. */
  'SIGNATURE_OBJECT_INVALID',
  /** `profile` is not supported, or not allowed by policy. */
  'PROFILE_UNSUPPORTED',
  /** `issuedAt`/`expiresAt` is not an RFC 3339 date-time with offset, or `expiresAt` is not after `issuedAt`. */
  'TIMESTAMP_INVALID',
  /** `issuedAt` is in the future (beyond the allowed skew). */
  'SIGNATURE_NOT_YET_VALID',
  /** `expiresAt` has passed. */
  'SIGNATURE_EXPIRED',
  /** `signer` differs from the manifest's `contributor` (exact comparison). */
  'SIGNER_CONTRIBUTOR_MISMATCH',
  /** The manifest's `subject` does not bind to its entry (identifier, type, version, digest or url). */
  'SUBJECT_MISMATCH',
  /** A digest is present but the artifact bytes were not given, so it cannot be checked. */
  'SUBJECT_DIGEST_UNCHECKED',
  /** A digest uses an unknown or weaker-than-SHA-256 algorithm, or is not `alg:lowerhex`. */
  'DIGEST_UNSUPPORTED',
  /** Catalog Profile: `host.identifier` differs from the signer. */
  'HOST_SIGNER_MISMATCH',
  /** An older release than one already accepted for this contributor (§3.4.9 replay). */
  'SIGNATURE_REPLAYED',
  /** The document has no signature to verify. */
  'SIGNATURE_ABSENT',
  /** More signatures than a verifier checks for one document (each can cost a key fetch). */
  'TOO_MANY_SIGNATURES',
  /** The document is not the kind of object this verifier expects. */
  'DOCUMENT_INVALID',
] as const;

export type SignatureCode = (typeof ALL_SIGNATURE_CODES)[number];

/** Algorithms this registry verifies: ES256 (required) and EdDSA over Ed25519 (extension). */
export type SignatureAlg = 'ES256' | 'EdDSA';

export interface SignatureVerified {
  verified: true;
  signer: string;
  kid: string;
  alg: SignatureAlg;
  /** RFC 3339 instant of the check (`now`): record it, and re-verify when the key document changes. */
  verifiedAt: string;
  /** The Signature object's profile (trust manifests and catalogs only). */
  profile?: string;
  /** The Signature object's `issuedAt` (trust manifests and catalogs only). */
  issuedAt?: string;
}

export interface SignatureRejected {
  verified: false;
  code: SignatureCode;
  /** JSON pointer into the checked document ("" for the document itself). */
  pointer: string;
  message: string;
  /** What is known at the point of rejection, for the record. */
  signer?: string;
  kid?: string;
  alg?: string;
}

export type SignatureResult = SignatureVerified | SignatureRejected;

export function reject(code: SignatureCode, pointer: string, message: string, known: Partial<Pick<SignatureRejected, 'signer' | 'kid' | 'alg'>> = {}): SignatureRejected {
  return { verified: false, code, pointer, message, ...known };
}
