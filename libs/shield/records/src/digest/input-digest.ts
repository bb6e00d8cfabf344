/**
 * `inputDigest` (§8.1): base64url(SHA-256(JCS(parsedInput))) without padding, 43 characters: the only
 * trace of a consult input that is ever stored (§12). `parsedInput` is the validated consult input
 * exactly as `validateConsultInput` returns it (trimmed, defaults filled, no ids generated, absent
 * optionals absent, an explicit "" proposedAction kept).
 *
 * SHA-256 comes from WebCrypto (`crypto.subtle`), present in Node 20 and in every browser: a reviewed
 * native implementation rather than one more hand-written hash to keep correct. It is asynchronous,
 * which the service's consult path already is. Browsers offer `crypto.subtle` only in secure contexts
 * (https, localhost); elsewhere this throws a plain Error saying so.
 */
import { canonicalJson } from '@trustmesh/shared-canonical-json';

import type { ConsultInput } from '../shield.types';

/** §8.1: 43 base64url characters. */
export const INPUT_DIGEST_PATTERN = /^[a-zA-Z0-9_-]{43}$/;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function base64url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] as number;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    out += BASE64URL[a >> 2];
    out += BASE64URL[((a & 0x03) << 4) | ((b ?? 0) >> 4)];
    if (b !== undefined) out += BASE64URL[((b & 0x0f) << 2) | ((c ?? 0) >> 6)];
    if (c !== undefined) out += BASE64URL[c & 0x3f];
  }
  return out;
}

export async function computeInputDigest(input: ConsultInput): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('inputDigest needs WebCrypto (crypto.subtle): run in Node 20+ or a browser secure context.');
  const bytes = new TextEncoder().encode(canonicalJson(input));
  return base64url(new Uint8Array(await subtle.digest('SHA-256', bytes)));
}
