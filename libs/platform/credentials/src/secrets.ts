/**
 * Bearer secrets as every app keeps them: minted with 256 bits from the OS CSPRNG, stored only as SHA-256
 * verifiers, compared in constant time. A fast hash is the right verifier here (not a password hash): every
 * secret is random and high-entropy, so there is nothing to brute-force, and a lookup costs one hash.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** base64url of 32 bytes is 43 characters. */
const SECRET_BODY = /^[A-Za-z0-9_-]{43}$/;

/**
 * A new secret: `prefix` then 32 random bytes in base64url. A prefix per kind of secret lets a secret
 * presented in the wrong place be refused before any lookup, and makes leaked strings easy to spot.
 */
export function mintSecret(prefix = ''): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** Whether `value` has the shape `mintSecret(prefix)` produces (prefix and 256-bit body). */
export function looksLikeSecret(value: string, prefix = ''): boolean {
  return value.startsWith(prefix) && SECRET_BODY.test(value.slice(prefix.length));
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function sha256Hex(value: string): string {
  return sha256(value).toString('hex');
}

/** Constant-time equality of two digests (other lengths are unequal, answered at once: lengths are public). */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** Whether `digest` equals any of `candidates`, looking at every candidate so time does not tell which. */
export function matchesAnyDigest(digest: Buffer, candidates: readonly Buffer[]): boolean {
  return indexOfDigest(digest, candidates) >= 0;
}

/** The index of the candidate `digest` equals (-1 if none), comparing every candidate so time does not tell which. */
export function indexOfDigest(digest: Buffer, candidates: readonly Buffer[]): number {
  let found = -1;
  candidates.forEach((candidate, index) => {
    if (digestsEqual(digest, candidate) && found < 0) found = index;
  });
  return found;
}
