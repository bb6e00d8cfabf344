/**
 * The Signature object of trust manifests and catalogs (CARDS.md §2.3, §3.4.1, §3.4.3): its members, its
 * profile (supported and allowed by policy, never inferred), and its validity window compared as instants.
 */
import { isJsonObject } from './payload.canonical';
import { reject, type SignatureAlg, type SignatureRejected } from './signature.codes';

/** The interoperable profile: did:web keys, ES256 only (§3.2). */
export const DID_WEB_V1_PROFILE = 'did-web-v1';
/**
 * This registry's EdDSA (Ed25519) extension profile, under its own URI since profile names are never reused
 * (§3.2). Not allowed unless the caller's policy lists it.
 */
export const DID_WEB_EDDSA_PROFILE = 'https://trustmesh.dev/profiles/ai-catalog/did-web-eddsa-v1';

/** Algorithms per supported profile. */
export const PROFILE_ALGORITHMS: Readonly<Record<string, readonly SignatureAlg[]>> = {
  [DID_WEB_V1_PROFILE]: ['ES256'],
  [DID_WEB_EDDSA_PROFILE]: ['EdDSA'],
};

export const DEFAULT_ALLOWED_PROFILES: readonly string[] = [DID_WEB_V1_PROFILE];
export const DEFAULT_CLOCK_SKEW_SECONDS = 60;

export interface SignatureObject {
  signer: string;
  profile: string;
  issuedAt: string;
  expiresAt?: string;
  jws: unknown;
}

/** Options shared by trust-manifest and catalog verification. */
export interface SignedObjectPolicy {
  /** Profiles allowed by policy (default: did-web-v1 only). Unsupported profiles are refused whatever this says. */
  allowedProfiles?: readonly string[];
  /** Verification time; default now. */
  now?: Date;
  /** Clock skew tolerated at both ends of the validity window; default 60 s. */
  clockSkewSeconds?: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch of a strict RFC 3339 date-time with offset; `undefined` otherwise. */
export function rfc3339Instant(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, , , offsetHour, offsetMinute] = match.map(Number);
  const daysInMonth = new Date(Date.UTC(year ?? 0, month ?? 0, 0)).getUTCDate();
  if ((month ?? 0) < 1 || (month ?? 0) > 12 || (day ?? 0) < 1 || (day ?? 0) > daysInMonth) return undefined;
  if ((hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59 || (offsetHour ?? 0) > 23 || (offsetMinute ?? 0) > 59) return undefined;
  const instant = Date.parse(text.toUpperCase());
  return Number.isNaN(instant) ? undefined : instant;
}

/** Reads the Signature object at `pointer`; checks members, profile and timestamps (not the window). */
export function readSignatureObject(value: unknown, pointer: string, policy: SignedObjectPolicy): { signature: SignatureObject; algs: readonly SignatureAlg[]; issuedAt: number; expiresAt?: number } | SignatureRejected {
  if (!isJsonObject(value)) return reject('SIGNATURE_ABSENT', pointer, 'There is no Signature object to verify.');
  const { signer, profile, issuedAt, expiresAt, jws } = value;
  if (typeof signer !== 'string' || signer === '') return reject('SIGNATURE_OBJECT_INVALID', `${pointer}/signer`, 'The Signature object needs "signer", a URI string.');
  if (typeof profile !== 'string') return reject('SIGNATURE_OBJECT_INVALID', `${pointer}/profile`, 'The Signature object needs "profile", a string.', { signer });
  if (!('jws' in value)) return reject('SIGNATURE_OBJECT_INVALID', `${pointer}/jws`, 'The Signature object needs "jws".', { signer });
  const algs = Object.prototype.hasOwnProperty.call(PROFILE_ALGORITHMS, profile) ? PROFILE_ALGORITHMS[profile] : undefined;
  if (algs === undefined) return reject('PROFILE_UNSUPPORTED', `${pointer}/profile`, `The profile "${profile.slice(0, 200)}" is not supported (supported: ${Object.keys(PROFILE_ALGORITHMS).join(', ')}).`, { signer });
  if (!(policy.allowedProfiles ?? DEFAULT_ALLOWED_PROFILES).includes(profile)) return reject('PROFILE_UNSUPPORTED', `${pointer}/profile`, `The profile "${profile}" is not allowed by this registry's policy.`, { signer });
  const issued = rfc3339Instant(issuedAt);
  if (issued === undefined) return reject('TIMESTAMP_INVALID', `${pointer}/issuedAt`, '"issuedAt" must be an RFC 3339 date-time with offset (e.g. 2026-09-12T10:00:00Z).', { signer });
  let expires: number | undefined;
  if (expiresAt !== undefined) {
    expires = rfc3339Instant(expiresAt);
    if (expires === undefined) return reject('TIMESTAMP_INVALID', `${pointer}/expiresAt`, '"expiresAt" must be an RFC 3339 date-time with offset.', { signer });
    if (expires <= issued) return reject('TIMESTAMP_INVALID', `${pointer}/expiresAt`, '"expiresAt" must be later than "issuedAt".', { signer });
  }
  const signature: SignatureObject = { signer, profile, issuedAt: issuedAt as string, jws, ...(expiresAt !== undefined ? { expiresAt: expiresAt as string } : {}) };
  return { signature, algs, issuedAt: issued, ...(expires !== undefined ? { expiresAt: expires } : {}) };
}

/** Valid from `issuedAt` until just before `expiresAt`, with the skew at both ends. */
export function checkValidityWindow(issuedAt: number, expiresAt: number | undefined, pointer: string, policy: SignedObjectPolicy, signer: string): SignatureRejected | undefined {
  const now = (policy.now ?? new Date()).getTime();
  const skew = (policy.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS) * 1000;
  if (issuedAt > now + skew) return reject('SIGNATURE_NOT_YET_VALID', `${pointer}/issuedAt`, 'The signature is not valid yet: "issuedAt" is in the future.', { signer });
  if (expiresAt !== undefined && now - skew >= expiresAt) return reject('SIGNATURE_EXPIRED', `${pointer}/expiresAt`, 'The signature has expired ("expiresAt" has passed); ask the signer for a fresh one.', { signer });
  return undefined;
}
