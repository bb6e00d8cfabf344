/**
 * AI Card v1 signatures, our profile (CARDS.md §3.5, signer per §1.2): a detached compact JWS over the JCS
 * form of the card without `signature`; signer = `publisher.id` if a did:web, else `id` if a did:web, else a
 * key the registry registered for the card's domain (a JWK Set at a URL the registry fixed).
 */
import { verifyDetachedCompact } from './jws.verify';
import type { KeyDocumentResolver, KeySource } from './key.resolution';
import { canonicalBytes, cardPayload, isJsonObject } from './payload.canonical';
import { reject, type SignatureResult } from './signature.codes';

/** A key the registry registered after verifying the card's domain (§1.2, third choice). */
export interface RegisteredKey {
  /** The identity the key speaks for, recorded as the signer (e.g. `https://acme.example`). */
  signer: string;
  /** The JWK Set URL fixed when the domain was verified; never taken from the JWS. */
  jwksUrl: string;
}

export interface AiCardVerifyOptions {
  resolver: KeyDocumentResolver;
  /** Verification time to record; default now. */
  now?: Date;
  registeredKey?: RegisteredKey;
}

/** Who must have signed a v1 card (§1.2); `undefined` when nobody can be determined. */
export function aiCardSigner(card: unknown, registeredKey?: RegisteredKey): KeySource | undefined {
  if (!isJsonObject(card)) return undefined;
  const publisherId = isJsonObject(card['publisher']) ? card['publisher']['id'] : undefined;
  if (typeof publisherId === 'string' && publisherId.startsWith('did:web:')) return { kind: 'did-web', signer: publisherId };
  if (typeof card['id'] === 'string' && card['id'].startsWith('did:web:')) return { kind: 'did-web', signer: card['id'] };
  if (registeredKey) return { kind: 'jwks', url: registeredKey.jwksUrl, signer: registeredKey.signer };
  return undefined;
}

/** Verifies a v1 card's `signature`; never throws. */
export async function verifyAiCardSignature(card: unknown, options: AiCardVerifyOptions): Promise<SignatureResult> {
  if (!isJsonObject(card)) return reject('DOCUMENT_INVALID', '', 'An AI Card must be a JSON object.');
  if (!('signature' in card)) return reject('SIGNATURE_ABSENT', '/signature', 'The card has no "signature" to verify.');
  const keySource = aiCardSigner(card, options.registeredKey);
  if (keySource === undefined) {
    return reject('SIGNER_UNKNOWN', '/publisher/id', 'No signer: neither "publisher.id" nor "id" is a did:web, and no key is registered for this card\'s domain.');
  }
  const payload = canonicalBytes(cardPayload(card));
  if ('verified' in payload) return payload;
  return verifyDetachedCompact(card['signature'], {
    payload: payload.bytes,
    rules: { kind: 'ai-card', algs: ['ES256', 'EdDSA'], kid: keySource.kind === 'did-web' ? { signerFragment: keySource.signer } : { jwks: true } },
    keySource,
    resolver: options.resolver,
    now: options.now ?? new Date(),
    pointer: '/signature',
  });
}
