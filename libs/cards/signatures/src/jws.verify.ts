/**
 * The one verification pipeline every profile runs (CARDS.md §3.1–§3.3): form, protected header,
 * signature encoding, key resolution, then the cryptographic check with `jose` over
 * `b64url(header).b64url(payload)`, the payload rebuilt by the caller from the document.
 */
import { base64url, flattenedVerify, importJWK } from 'jose';

import { checkHeader, decodeBase64Url, decodeProtectedHeader, splitDetachedCompact, type DetachedJwsParts, type HeaderRules } from './jws.header';
import { resolveVerificationKey, type KeyDocumentResolver, type KeySource, type PublicJwk } from './key.resolution';
import { reject, type SignatureAlg, type SignatureResult } from './signature.codes';

export interface DetachedVerification {
  /** The exact bytes signed: the UTF-8 JCS form of the document minus its signature. */
  payload: Uint8Array;
  rules: HeaderRules;
  keySource: KeySource;
  resolver: KeyDocumentResolver;
  now: Date;
  /** JSON pointer of the signature within the checked document. */
  pointer: string;
  /** An A2A signature's unprotected `header` (flattened form). */
  unprotected?: Record<string, unknown>;
}

/** Verifies a detached compact JWS (`header..signature`). */
export async function verifyDetachedCompact(jws: unknown, check: DetachedVerification): Promise<SignatureResult> {
  const parts = splitDetachedCompact(jws, check.pointer);
  if ('verified' in parts) return parts;
  return verifyDetachedParts(parts, check);
}

/** Verifies a JWS given as its protected header and signature segments (compact or flattened form). */
export async function verifyDetachedParts(parts: DetachedJwsParts, check: DetachedVerification): Promise<SignatureResult> {
  const { pointer, keySource } = check;
  const decoded = decodeProtectedHeader(parts.protectedB64, pointer);
  if ('verified' in decoded) return { ...decoded, signer: keySource.signer };
  const header = checkHeader(decoded.header, check.rules, pointer, check.unprotected);
  if ('verified' in header) return { ...header, signer: keySource.signer };
  const { alg, kid } = header;
  const known = { signer: keySource.signer, kid, alg };
  const signature = decodeBase64Url(parts.signatureB64);
  // ES256 is the 64-byte r||s (not DER); an Ed25519 signature is 64 bytes too.
  if (signature === undefined || signature.length !== 64) {
    return reject('JWS_SIGNATURE_ENCODING', pointer, `The signature segment must be 64 bytes of base64url without padding (${alg === 'ES256' ? 'the r||s form, not DER' : 'Ed25519'}).`, known);
  }
  const jwk = await resolveVerificationKey(keySource, kid, alg, check.resolver, pointer);
  if ('verified' in jwk) return jwk;
  const joseAlg = decoded.header['alg'] as string;
  let key;
  try {
    key = await importPublicKey(jwk, alg);
  } catch {
    return reject('KEY_INVALID', pointer, `The public key "${kid}" is not a valid ${alg === 'ES256' ? 'P-256' : 'Ed25519'} key.`, known);
  }
  try {
    await flattenedVerify({ protected: parts.protectedB64, payload: base64url.encode(check.payload), signature: parts.signatureB64 }, key, { algorithms: [joseAlg] });
  } catch {
    return reject('SIGNATURE_INVALID', pointer, `The signature does not verify with key "${kid}" over the document as given (changed content, or signed with another key).`, known);
  }
  return { verified: true, signer: keySource.signer, kid, alg, verifiedAt: check.now.toISOString() };
}

/**
 * Imported keys, by their exact (checked, public-only) JWK and algorithm. Importing costs more than verifying, and a
 * registry checks many cards per signer key. Memoising by key material is not a key cache: the key is still resolved
 * and checked against the signer's current document on every call, so a removed key fails before it is looked up here.
 */
const IMPORTED_KEYS = new Map<string, ReturnType<typeof importJWK>>();
const MAX_IMPORTED_KEYS = 1024;

function importPublicKey(jwk: PublicJwk, alg: SignatureAlg): ReturnType<typeof importJWK> {
  const id = jwk.kty === 'EC' ? `${alg}|EC|${jwk.crv}|${jwk.x}|${jwk.y}` : `${alg}|OKP|${jwk.crv}|${jwk.x}`;
  const cached = IMPORTED_KEYS.get(id);
  if (cached !== undefined) return cached;
  const imported = importJWK(jwk, alg === 'ES256' ? 'ES256' : 'EdDSA');
  IMPORTED_KEYS.set(id, imported);
  if (IMPORTED_KEYS.size > MAX_IMPORTED_KEYS) IMPORTED_KEYS.delete(IMPORTED_KEYS.keys().next().value as string);
  // A key that fails to import is not remembered: it is refused again, at full cost, the next time.
  imported.catch(() => {
    if (IMPORTED_KEYS.get(id) === imported) IMPORTED_KEYS.delete(id);
  });
  return imported;
}
