/**
 * `inputDigest` (§8.1): base64url(SHA-256(JCS(parsedInput))) without padding, 43 characters: the only
 * trace of a consult input that is ever stored (§12). `parsedInput` is the validated consult input
 * exactly as `validateConsultInput` returns it (trimmed, defaults filled, no ids generated, absent
 * optionals absent, an explicit "" proposedAction kept).
 *
 * SHA-256 is a reviewed native implementation rather than one more hand-written hash to keep correct: on
 * Node, `node:crypto` (reached through `process.getBuiltinModule`, so the library still loads in a browser);
 * elsewhere WebCrypto (`crypto.subtle`), which browsers offer only in secure contexts (https, localhost;
 * elsewhere this throws a plain Error saying so). Node's WebCrypto digest is a job on the thread pool and
 * cost the consult path's event loop about 0.9 ms per digest (`bench:shield` CPU profile); `createHash`
 * hashes a consult input in microseconds, on the spot.
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
  const text = canonicalJson(input);
  if (nodeCrypto) return base64url(nodeCrypto.createHash('sha256').update(text, 'utf8').digest());
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('inputDigest needs WebCrypto (crypto.subtle): run in Node 20+ or a browser secure context.');
  return base64url(new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

/** The part of `node:crypto` used here, when this runs on Node (20.16+ has `process.getBuiltinModule`). */
interface NodeCrypto {
  createHash(algorithm: 'sha256'): { update(data: string, encoding: 'utf8'): { digest(): Uint8Array } };
}

const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
