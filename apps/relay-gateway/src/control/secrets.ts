/**
 * The gateway's secrets: minted with 256 bits from the OS CSPRNG, kept only as SHA-256 verifiers, and
 * compared in constant time. A fast hash is the right verifier here (not a password hash): every secret is
 * random and high-entropy, so there is nothing to brute-force.
 *
 * Each kind has its own prefix, so a secret presented in the wrong place (a pairing code as a device
 * credential, §12 step 5) is recognised and refused before any lookup, and leaked strings are easy to spot.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIXES = {
  pairingCode: 'tmpc_',
  deviceCredential: 'tmdc_',
  browserTicket: 'tmbt_',
  serviceCredential: 'tmsc_',
} as const;
export type SecretKind = keyof typeof SECRET_PREFIXES;

/** base64url of 32 bytes is 43 characters. */
const SECRET_BODY = /^[A-Za-z0-9_-]{43}$/;

export function mintSecret(kind: SecretKind): string {
  return `${SECRET_PREFIXES[kind]}${randomBytes(32).toString('base64url')}`;
}

/** Whether `value` has the shape of a secret of `kind` (prefix and 256-bit body). */
export function looksLike(kind: SecretKind, value: string): boolean {
  const prefix = SECRET_PREFIXES[kind];
  return value.startsWith(prefix) && SECRET_BODY.test(value.slice(prefix.length));
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function sha256Hex(value: string): string {
  return sha256(value).toString('hex');
}

/** Constant-time equality of two digests (equal-length buffers; other lengths are unequal). */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** Whether `digest` equals any of `candidates`, looking at every candidate so time does not tell which. */
export function matchesAnyDigest(digest: Buffer, candidates: readonly Buffer[]): boolean {
  let found = false;
  for (const candidate of candidates) found = digestsEqual(digest, candidate) || found;
  return found;
}
