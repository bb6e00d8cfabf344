/**
 * Challenge tokens a publisher places in DNS, in the well-known file or signs with its did:web key: 32 random bytes,
 * base64url without padding (43 characters), so a token cannot be guessed or reused across namespaces.
 */
import { randomBytes } from 'node:crypto';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function createChallengeToken(): string {
  return randomBytes(32).toString('base64url');
}

export function isChallengeToken(text: string): boolean {
  return TOKEN.test(text);
}

/** The exact text the DNS record and the signed did:web challenge carry. */
export function challengeText(token: string): string {
  return `trustmesh-verification=${token}`;
}
