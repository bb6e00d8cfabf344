/**
 * What each kind of signature covers (CARDS.md §3.1, §3.5): the document minus its own signature, then
 * RFC 8785 (JCS) as UTF-8 bytes. The removal is shallow: nested signatures stay in the payload.
 */
import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { reject, type SignatureRejected } from './signature.codes';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** UTF-8 bytes of the JCS form of `value`, or a rejection if it has no canonical form (e.g. a non-finite number). */
export function canonicalBytes(value: unknown, pointer = ''): { bytes: Uint8Array } | SignatureRejected {
  try {
    return { bytes: new TextEncoder().encode(canonicalJson(value)) };
  } catch {
    return reject('PAYLOAD_NOT_CANONICAL', pointer, 'The document cannot be canonicalised (RFC 8785): it holds a value JSON cannot represent.');
  }
}

/** A v1 card's payload object: the card without `signature`. */
export function cardPayload(card: JsonObject): JsonObject {
  const { signature: _signature, ...rest } = card;
  return rest;
}

/** A manifest's or catalog's payload object: minus its own `signature.jws` and its own `additionalSignatures`. */
export function signedObjectPayload(object: JsonObject): JsonObject {
  const { additionalSignatures: _additional, ...rest } = object;
  if (isJsonObject(rest['signature'])) {
    const { jws: _jws, ...signature } = rest['signature'];
    rest['signature'] = signature;
  }
  return rest;
}
