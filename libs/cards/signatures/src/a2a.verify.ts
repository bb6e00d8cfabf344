/**
 * A2A AgentCard signatures (CARDS.md §3.6): every entry of `signatures[]` is a flattened JWS with a detached
 * payload over the card's canonical form (a2a.canonical.ts). Each is verified and recorded on its own; the
 * keys come from the did:web document or JWK Set the caller fixed, never from `jku` (a hint, never fetched).
 */
import { a2aSigningPayload } from './a2a.canonical';
import { verifyDetachedParts } from './jws.verify';
import type { KeyDocumentResolver, KeySource } from './key.resolution';
import { isJsonObject } from './payload.canonical';
import { reject, type SignatureResult } from './signature.codes';

/** Key rotation needs two or three; a card with more is refused rather than costing a key fetch each. */
export const MAX_A2A_SIGNATURES = 16;

export interface A2aVerifyOptions {
  resolver: KeyDocumentResolver;
  /** Where the agent's keys are: the did:web of its domain, or a JWK Set URL the registry fixed. */
  keySource: KeySource;
  now?: Date;
}

export interface A2aSignaturesResult {
  /** One result per `signatures[i]`, in order (a single SIGNATURE_ABSENT result when there are none). */
  results: SignatureResult[];
  /** Whether at least one signature verified; the per-namespace policy decides what that means. */
  anyVerified: boolean;
}

/** Verifies every signature of an A2A card exactly as given; never throws. */
export async function verifyA2aCardSignatures(card: unknown, options: A2aVerifyOptions): Promise<A2aSignaturesResult> {
  const done = (results: SignatureResult[]) => ({ results, anyVerified: results.some((result) => result.verified) });
  if (!isJsonObject(card)) return done([reject('DOCUMENT_INVALID', '', 'An A2A AgentCard must be a JSON object.')]);
  const signatures = card['signatures'];
  if (signatures === undefined || (Array.isArray(signatures) && signatures.length === 0)) return done([reject('SIGNATURE_ABSENT', '/signatures', 'The card has no signatures to verify.')]);
  if (!Array.isArray(signatures)) return done([reject('JWS_MALFORMED', '/signatures', '"signatures" must be an array of {protected, signature, header?}.')]);
  if (signatures.length > MAX_A2A_SIGNATURES) return done([reject('TOO_MANY_SIGNATURES', '/signatures', `The card has ${signatures.length} signatures; at most ${MAX_A2A_SIGNATURES} are checked.`)]);
  const payload = a2aSigningPayload(card);
  if (payload === undefined) return done([reject('PAYLOAD_NOT_CANONICAL', '', 'The card cannot be canonicalised (RFC 8785).')]);
  const bytes = new TextEncoder().encode(payload);
  const results: SignatureResult[] = [];
  for (const [index, entry] of signatures.entries()) {
    const pointer = `/signatures/${index}`;
    if (!isJsonObject(entry) || typeof entry['protected'] !== 'string' || typeof entry['signature'] !== 'string' || ('header' in entry && !isJsonObject(entry['header']))) {
      results.push(reject('JWS_MALFORMED', pointer, 'A signature must be {"protected": string, "signature": string, "header"?: object}.'));
      continue;
    }
    if ('payload' in entry && entry['payload'] !== '') {
      results.push(reject('JWS_NOT_DETACHED', pointer, 'The signature carries a payload; A2A card signatures are detached.'));
      continue;
    }
    const unprotected = isJsonObject(entry['header']) ? entry['header'] : undefined;
    const kidRule = options.keySource.kind === 'did-web' ? { a2aUnder: options.keySource.signer } : ({ jwks: true } as const);
    results.push(
      await verifyDetachedParts(
        { protectedB64: entry['protected'], signatureB64: entry['signature'] },
        { payload: bytes, rules: { kind: 'a2a-card', algs: ['ES256', 'EdDSA'], kid: kidRule, jkuIsHint: true }, keySource: options.keySource, resolver: options.resolver, now: options.now ?? new Date(), pointer, ...(unprotected ? { unprotected } : {}) },
      ),
    );
  }
  return done(results);
}
