/**
 * Test signers for CARDS.md §3: fresh ES256/Ed25519 keys, did:web documents that publish them, and detached
 * signatures over v1 cards, trust manifests, catalogs and A2A cards, made the way a real signer makes them
 * (JCS payload, `b64url(header).b64url(payload)` signed, payload segment removed). Headers can be bent on
 * purpose (`header: { typ: undefined, jku: '…' }`) to test refusals.
 */
import { base64url, exportJWK, generateKeyPair, type JWK } from 'jose';

import { a2aSigningPayload } from '../a2a.canonical';
import { mapResolver, didWebDocumentUrl, type KeyDocumentResolver } from '../key.resolution';
import { canonicalBytes, cardPayload, signedObjectPayload, type JsonObject } from '../payload.canonical';
import type { SignatureAlg } from '../signature.codes';
import { DID_WEB_V1_PROFILE } from '../signature-object.check';

export interface TestSigningKey {
  alg: SignatureAlg;
  signer: string;
  kid: string;
  privateKey: CryptoKey;
  /** The public JWK as a DID document publishes it. */
  publicJwk: JWK;
}

/** A fresh key pair for `signer` (default `did:web:acme.example`), kid `signer#fragment`. */
export async function generateSigningKey(options: { alg?: SignatureAlg; signer?: string; fragment?: string } = {}): Promise<TestSigningKey> {
  const alg = options.alg ?? 'ES256';
  const signer = options.signer ?? 'did:web:acme.example';
  const { privateKey, publicKey } = await generateKeyPair(alg === 'ES256' ? 'ES256' : 'EdDSA', { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const publicJwk = await exportJWK(publicKey);
  return { alg, signer, kid: `${signer}#${options.fragment ?? 'signing-key-1'}`, privateKey: privateKey as CryptoKey, publicJwk };
}

export type VerificationRelationship = 'assertionMethod' | 'authentication' | 'keyAgreement';

/** A did:web document for `signer` publishing `keys` (by default under `assertionMethod`). */
export function didWebDocument(signer: string, keys: readonly TestSigningKey[], relationships: readonly VerificationRelationship[] = ['assertionMethod']): JsonObject {
  const document: JsonObject = {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: signer,
    verificationMethod: keys.map((key) => ({ id: key.kid, type: 'JsonWebKey2020', controller: signer, publicKeyJwk: key.publicJwk })),
  };
  for (const relationship of relationships) document[relationship] = keys.map((key) => key.kid);
  return document;
}

/** A resolver that serves each DID document at its did:web URL, plus any `extra` URL -> document. */
export function didWebResolver(documents: readonly JsonObject[], extra: Readonly<Record<string, unknown>> = {}): KeyDocumentResolver {
  const record: Record<string, unknown> = { ...extra };
  for (const document of documents) {
    const url = didWebDocumentUrl(String(document['id']));
    if (url !== undefined) record[url] = document;
  }
  return mapResolver(record);
}

/** Header members; `undefined` removes a default member (e.g. `{ typ: undefined }`). */
export type HeaderOverrides = Readonly<Record<string, unknown>>;

async function signingInput(payload: Uint8Array, key: TestSigningKey, defaults: JsonObject, overrides: HeaderOverrides): Promise<{ protectedB64: string; signatureB64: string }> {
  const header = JSON.stringify({ alg: key.alg, kid: key.kid, ...defaults, ...overrides });
  const protectedB64 = base64url.encode(header);
  const data = new TextEncoder().encode(`${protectedB64}.${base64url.encode(payload)}`);
  const algorithm = key.alg === 'ES256' ? { name: 'ECDSA', hash: 'SHA-256' } : { name: 'Ed25519' };
  const signature = new Uint8Array(await crypto.subtle.sign(algorithm, key.privateKey, data));
  return { protectedB64, signatureB64: base64url.encode(signature) };
}

/** A detached compact JWS over `payload` bytes. */
export async function signDetachedPayload(payload: Uint8Array, key: TestSigningKey, header: HeaderOverrides = {}): Promise<string> {
  const { protectedB64, signatureB64 } = await signingInput(payload, key, {}, header);
  return `${protectedB64}..${signatureB64}`;
}

function jcs(value: unknown): Uint8Array {
  const result = canonicalBytes(value);
  if ('verified' in result) throw new Error('test document has no canonical form');
  return result.bytes;
}

/** The card with `signature` set to a detached JWS by `key` (typ `ai-card+jws` unless overridden). */
export async function signAiCard(card: JsonObject, key: TestSigningKey, header: HeaderOverrides = {}): Promise<JsonObject> {
  const signature = await signDetachedPayload(jcs(cardPayload(card)), key, { typ: 'ai-card+jws', ...header });
  return { ...cardPayload(card), signature };
}

export interface SignatureObjectOptions {
  issuedAt: string;
  expiresAt?: string;
  profile?: string;
  /** Recorded signer; default the key's signer. */
  signer?: string;
  header?: HeaderOverrides;
}

async function signWithSignatureObject(object: JsonObject, key: TestSigningKey, typ: string, options: SignatureObjectOptions): Promise<JsonObject> {
  const signature: JsonObject = {
    signer: options.signer ?? key.signer,
    profile: options.profile ?? DID_WEB_V1_PROFILE,
    issuedAt: options.issuedAt,
    ...(options.expiresAt !== undefined ? { expiresAt: options.expiresAt } : {}),
  };
  const unsigned = { ...object, signature };
  const jws = await signDetachedPayload(jcs(signedObjectPayload(unsigned)), key, { typ, ...options.header });
  return { ...object, signature: { ...signature, jws } };
}

/** The trust manifest with a Signature object by `key` (profile did-web-v1 unless given). */
export function signTrustManifest(manifest: JsonObject, key: TestSigningKey, options: SignatureObjectOptions): Promise<JsonObject> {
  return signWithSignatureObject(manifest, key, 'ai-catalog-trust-manifest+jws', options);
}

/** The catalog with a root Signature object by `key` (covers entries and their manifests). */
export function signCatalog(catalog: JsonObject, key: TestSigningKey, options: SignatureObjectOptions): Promise<JsonObject> {
  return signWithSignatureObject(catalog, key, 'ai-catalog+jws', options);
}

/** The A2A card with one more flattened detached signature in `signatures` (typ JOSE unless overridden). */
export async function signA2aCard(card: JsonObject, key: TestSigningKey, options: { header?: HeaderOverrides; unprotected?: JsonObject } = {}): Promise<JsonObject> {
  const payload = a2aSigningPayload(card);
  if (payload === undefined) throw new Error('test card has no canonical form');
  const { protectedB64, signatureB64 } = await signingInput(new TextEncoder().encode(payload), key, { typ: 'JOSE' }, options.header ?? {});
  const existing = Array.isArray(card['signatures']) ? card['signatures'] : [];
  return { ...card, signatures: [...existing, { protected: protectedB64, signature: signatureB64, ...(options.unprotected ? { header: options.unprotected } : {}) }] };
}
