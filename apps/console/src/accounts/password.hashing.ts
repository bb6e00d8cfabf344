/**
 * Console passwords (API.md "Authentication"): 12-1024 characters, hashed with scrypt from node:crypto
 * (memory-hard: N=2^15, r=8, p=1, a 16-byte random salt, a 32-byte key), stored as
 * `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<key b64url>` so the parameters can be raised later and old hashes
 * still verify. Verification compares in constant time; a sign-in for an unknown username verifies against
 * `DUMMY_HASH` so it costs one scrypt like a real one (no timing oracle on which names exist).
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

const LOG2_N = 15;
const R = 8;
const P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** scrypt needs 128 * N * r bytes (32 MiB here); Node's default cap is exactly that, so set it with room. */
const MAX_MEMORY = 64 * 1024 * 1024;
/** The most a stored hash may ask for (a tampered row must not make a sign-in allocate gigabytes). */
const MAX_LOG2_N = 20;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => scryptCallback(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolvePromise(key))));
}

/** Null when the password is acceptable, else what is wrong with it (never echoing it). */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string') return 'The password must be a string';
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `The password must be at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_BYTES, { N: 2 ** LOG2_N, r: R, p: P, maxmem: MAX_MEMORY });
  return ['scrypt', LOG2_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const HASH = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{16,128})$/;

/** Whether `password` is the one `stored` was made from; false for a hash this code cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = HASH.exec(stored);
  if (!match) return false;
  const [log2N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (log2N < 10 || log2N > MAX_LOG2_N || r < 1 || r > 16 || p < 1 || p > 4) return false;
  const salt = Buffer.from(match[4] as string, 'base64url');
  const expected = Buffer.from(match[5] as string, 'base64url');
  const key = await scrypt(password, salt, expected.length, { N: 2 ** log2N, r, p, maxmem: Math.max(MAX_MEMORY, 256 * 2 ** log2N * r) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** The hash an unknown username is checked against: same parameters as a real one, matching no password. */
export const DUMMY_HASH = `scrypt$${LOG2_N}$${R}$${P}$${Buffer.alloc(SALT_BYTES, 7).toString('base64url')}$${Buffer.alloc(KEY_BYTES, 0).toString('base64url')}`;
