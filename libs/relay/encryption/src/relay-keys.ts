/**
 * X25519 key pairs for the relay's end-to-end encryption profile, and their text forms: public keys as
 * base64url of the 32 raw bytes (what people paste or scan when they exchange keys out of band), private
 * keys as base64url PKCS#8 or as a JWK (what a local secret store keeps). The relay never sees any of them.
 */
import { decodeBase64Url, encodeBase64Url } from './base64url';
import { EncryptionError } from './encryption-error';

const X25519 = { name: 'X25519' } as const;
const PUBLIC_KEY_BYTES = 32;

export interface RelayKeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** WebCrypto of the platform (browsers and Node ≥ 20 both expose `globalThis.crypto.subtle`). */
export function subtle(): SubtleCrypto {
  const candidate = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!candidate) throw new EncryptionError('ENCRYPTION_UNAVAILABLE');
  return candidate;
}

/** A fresh X25519 key pair; the private key is extractable so it can be stored. */
export async function generateRelayKeyPair(): Promise<RelayKeyPair> {
  try {
    const pair = (await subtle().generateKey(X25519, true, ['deriveBits'])) as CryptoKeyPair;
    return { privateKey: pair.privateKey, publicKey: pair.publicKey };
  } catch (cause) {
    if (cause instanceof EncryptionError) throw cause;
    throw new EncryptionError('ENCRYPTION_UNAVAILABLE', 'X25519 key generation failed');
  }
}

/** The public key as base64url of its 32 raw bytes. */
export async function exportPublicKey(publicKey: CryptoKey): Promise<string> {
  try {
    return encodeBase64Url(new Uint8Array(await subtle().exportKey('raw', publicKey)));
  } catch {
    throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'not an X25519 public key');
  }
}

export async function importPublicKey(text: string): Promise<CryptoKey> {
  const raw = typeof text === 'string' && text.length <= 64 ? decodeBase64Url(text) : undefined;
  if (!raw || raw.length !== PUBLIC_KEY_BYTES) throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'a public key is 32 bytes of base64url');
  try {
    return await subtle().importKey('raw', raw, X25519, true, []);
  } catch {
    throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'not an X25519 public key');
  }
}

/** The private key as base64url PKCS#8 (default) or as a JWK. Treat the output as a secret. */
export async function exportPrivateKey(privateKey: CryptoKey, format: 'pkcs8'): Promise<string>;
export async function exportPrivateKey(privateKey: CryptoKey, format: 'jwk'): Promise<JsonWebKey>;
export async function exportPrivateKey(privateKey: CryptoKey, format: 'pkcs8' | 'jwk' = 'pkcs8'): Promise<string | JsonWebKey> {
  try {
    if (format === 'jwk') return await subtle().exportKey('jwk', privateKey);
    return encodeBase64Url(new Uint8Array(await subtle().exportKey('pkcs8', privateKey)));
  } catch {
    throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'not an extractable X25519 private key');
  }
}

/** Imports a private key from base64url PKCS#8 or from a JWK; `extractable` defaults to false. */
export async function importPrivateKey(key: string | JsonWebKey, extractable = false): Promise<CryptoKey> {
  try {
    if (typeof key === 'string') {
      const der = key.length <= 512 ? decodeBase64Url(key) : undefined;
      if (!der) throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'a private key is base64url PKCS#8 or a JWK');
      return await subtle().importKey('pkcs8', der, X25519, extractable, ['deriveBits']);
    }
    if (key === null || typeof key !== 'object' || key.kty !== 'OKP' || key.crv !== 'X25519' || typeof key.d !== 'string') {
      throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'a private JWK has kty OKP, crv X25519 and d');
    }
    return await subtle().importKey('jwk', key, X25519, extractable, ['deriveBits']);
  } catch (cause) {
    if (cause instanceof EncryptionError) throw cause;
    throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'not an X25519 private key');
  }
}

/** Accepts the forms callers have at hand: a CryptoKey or one of the text forms above. */
export async function toPrivateKey(key: CryptoKey | string | JsonWebKey): Promise<CryptoKey> {
  if (isCryptoKey(key)) {
    if (key.type !== 'private' || key.algorithm.name !== 'X25519') throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'expected an X25519 private key');
    return key;
  }
  return importPrivateKey(key);
}

export async function toPublicKey(key: CryptoKey | string): Promise<CryptoKey> {
  if (isCryptoKey(key)) {
    if (key.type !== 'public' || key.algorithm.name !== 'X25519') throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'expected an X25519 public key');
    return key;
  }
  return importPublicKey(key);
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return typeof CryptoKey !== 'undefined' && value instanceof CryptoKey;
}
