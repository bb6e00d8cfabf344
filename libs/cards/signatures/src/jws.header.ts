/**
 * Detached JWS form and protected-header rules (CARDS.md §3.1, §3.2, §3.5, §3.6): splits a detached
 * compact JWS, decodes its protected header under a size bound, and checks alg, typ, kid, the forbidden
 * parameters and crit before any key is looked up.
 */
import { parseStrictJson } from '@trustmesh/shared-strict-json';

import { reject, type SignatureAlg, type SignatureRejected } from './signature.codes';

/** Bound on the encoded protected header: a real one is under 300 bytes; a hostile one is refused unread. */
export const MAX_PROTECTED_HEADER_CHARS = 8 * 1024;
const MAX_SIGNATURE_CHARS = 1024;

/** The kind of object a signature belongs to: `typ` keeps signatures from moving between kinds. */
export type SignedObjectKind = 'trust-manifest' | 'catalog' | 'ai-card' | 'a2a-card';

/** Accepted `typ` values per kind; `undefined` in the list means "absent is accepted". */
const TYP_BY_KIND: Record<SignedObjectKind, ReadonlyArray<string | undefined>> = {
  'trust-manifest': ['ai-catalog-trust-manifest+jws'],
  catalog: ['ai-catalog+jws'],
  'ai-card': ['ai-card+jws', 'JOSE', undefined],
  'a2a-card': ['JOSE', undefined],
};

const FORBIDDEN_PARAMS = ['jku', 'jwk', 'x5u', 'x5c', 'b64'] as const;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export interface DetachedJwsParts {
  protectedB64: string;
  signatureB64: string;
}

export interface HeaderRules {
  /** `detached-payload`: bytes the caller defines (e.g. an ownership challenge), `typ` must equal `rules.typ`. */
  kind: SignedObjectKind | 'detached-payload';
  /** The one accepted `typ` of a `detached-payload`. */
  typ?: string;
  /** Algorithms the profile allows. */
  algs: readonly SignatureAlg[];
  /** How `kid` must relate to the signer. */
  kid: { signerFragment: string } | { jwks: true } | { a2aUnder: string };
  /** A2A lets `jku` through as an unused hint (§3.6); everywhere else it is forbidden. */
  jkuIsHint?: boolean;
}

export interface CheckedHeader {
  alg: SignatureAlg;
  kid: string;
}

/** Splits `b64url(header)..b64url(signature)`; anything else is refused. */
export function splitDetachedCompact(jws: unknown, pointer: string): DetachedJwsParts | SignatureRejected {
  if (typeof jws !== 'string') return reject('JWS_MALFORMED', pointer, 'The signature must be a string holding a detached compact JWS (header..signature).');
  if (jws.length > MAX_PROTECTED_HEADER_CHARS + MAX_SIGNATURE_CHARS + 2) return reject('JWS_HEADER_TOO_LARGE', pointer, `The JWS is longer than a protected header of ${MAX_PROTECTED_HEADER_CHARS} characters allows.`);
  const parts = jws.split('.');
  if (parts.length !== 3) return reject('JWS_MALFORMED', pointer, 'A detached compact JWS has exactly three dot-separated segments (header..signature).');
  const [protectedB64 = '', payload = '', signatureB64 = ''] = parts;
  if (payload !== '') return reject('JWS_NOT_DETACHED', pointer, 'The JWS carries a payload; sign detached (empty middle segment): the payload is rebuilt from the document.');
  return { protectedB64, signatureB64 };
}

/** Decodes base64url without padding; `undefined` for anything that is not strictly that. */
export function decodeBase64Url(text: string): Uint8Array | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

/** Decodes the protected header: bounded, strict base64url, UTF-8, JSON object without duplicate keys. */
export function decodeProtectedHeader(protectedB64: string, pointer: string): { header: Record<string, unknown> } | SignatureRejected {
  if (protectedB64.length > MAX_PROTECTED_HEADER_CHARS) return reject('JWS_HEADER_TOO_LARGE', pointer, `The protected header is over ${MAX_PROTECTED_HEADER_CHARS} characters.`);
  const bytes = decodeBase64Url(protectedB64);
  if (bytes === undefined || bytes.length === 0) return reject('JWS_HEADER_INVALID', pointer, 'The protected header is not base64url without padding.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return reject('JWS_HEADER_INVALID', pointer, 'The protected header is not UTF-8 text.');
  }
  const parsed = parseStrictJson(text, { maxDepth: 8, loneSurrogates: 'refuse' });
  if (!parsed.ok) return reject('JWS_HEADER_INVALID', pointer, `The protected header is not a valid JSON object (${parsed.issue.code}).`);
  const header = parsed.value;
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return reject('JWS_HEADER_INVALID', pointer, 'The protected header must be a JSON object.');
  return { header: header as Record<string, unknown> };
}

/** Maps a header `alg` to a supported algorithm, with a distinct code for each kind of refusal. */
export function checkAlg(alg: unknown, allowed: readonly SignatureAlg[], pointer: string): SignatureAlg | SignatureRejected {
  if (typeof alg !== 'string' || alg === '') return reject('JWS_ALG_MISSING', pointer, 'The protected header has no "alg".');
  if (alg.toLowerCase() === 'none') return reject('JWS_ALG_NONE', pointer, '"alg": "none" is an unsigned JWS and is never accepted.', { alg });
  if (/^HS\d+$/i.test(alg)) return reject('JWS_ALG_SYMMETRIC', pointer, `"alg": "${alg}" is an HMAC algorithm; signatures here are verified with public keys only (ES256, or EdDSA where allowed).`, { alg });
  // RFC 9864 names Ed25519 as a fully specified synonym of EdDSA over Ed25519.
  const normalised: SignatureAlg | undefined = alg === 'ES256' ? 'ES256' : alg === 'EdDSA' || alg === 'Ed25519' ? 'EdDSA' : undefined;
  if (normalised === undefined) return reject('JWS_ALG_UNSUPPORTED', pointer, `"alg": "${alg.slice(0, 40)}" is not supported; use ES256 (or EdDSA where the profile allows it).`, { alg: alg.slice(0, 40) });
  if (!allowed.includes(normalised)) return reject('JWS_ALG_NOT_ALLOWED_BY_PROFILE', pointer, `"alg": "${alg}" is not allowed under this signature's profile (allowed: ${allowed.join(', ')}).`, { alg });
  return normalised;
}

/** Checks the protected header (and an A2A unprotected header) against the rules of §3.2. */
export function checkHeader(header: Record<string, unknown>, rules: HeaderRules, pointer: string, unprotected?: Record<string, unknown>): CheckedHeader | SignatureRejected {
  const alg = checkAlg(header['alg'], rules.algs, pointer);
  if (typeof alg !== 'string') return alg;
  for (const source of [header, unprotected ?? {}]) {
    for (const name of FORBIDDEN_PARAMS) {
      if (name === 'jku' && rules.jkuIsHint) continue;
      if (Object.prototype.hasOwnProperty.call(source, name)) {
        return reject('JWS_HEADER_FORBIDDEN', pointer, `The header parameter "${name}" is forbidden: keys come only from the signer's DID document or the registered JWK Set, and the payload is always base64url-encoded.`, { alg });
      }
    }
  }
  if (Object.prototype.hasOwnProperty.call(header, 'crit')) {
    return reject('JWS_CRIT_UNSUPPORTED', pointer, 'The header lists "crit" extensions; none are supported here, so the JWS cannot be understood safely.', { alg });
  }
  if (unprotected && Object.prototype.hasOwnProperty.call(unprotected, 'crit')) {
    return reject('JWS_CRIT_UNSUPPORTED', pointer, '"crit" must be in the protected header, and no extensions are supported.', { alg });
  }
  if (unprotected && Object.keys(unprotected).some((name) => Object.prototype.hasOwnProperty.call(header, name))) {
    return reject('JWS_HEADER_INVALID', pointer, 'A parameter appears in both the protected and the unprotected header.', { alg });
  }
  const typ = header['typ'];
  const accepted = rules.kind === 'detached-payload' ? (rules.typ !== undefined ? [rules.typ] : []) : TYP_BY_KIND[rules.kind];
  if (!(typ === undefined || typeof typ === 'string') || !accepted.includes(typ)) {
    const expected = accepted.map((value) => (value === undefined ? '(absent)' : `"${value}"`)).join(' or ');
    return reject('JWS_TYP_MISMATCH', pointer, `"typ" must be ${expected} for this kind of object (got ${typ === undefined ? 'none' : JSON.stringify(typ).slice(0, 60)}).`, { alg });
  }
  const kid = header['kid'];
  if (typeof kid !== 'string' || kid === '') return reject('JWS_KID_INVALID', pointer, 'The protected header has no "kid".', { alg });
  if ('signerFragment' in rules.kid && !isKidUnderSigner(kid, rules.kid.signerFragment)) {
    return reject('JWS_KID_INVALID', pointer, `"kid" must be the signer "${rules.kid.signerFragment}" followed by "#" and a non-empty fragment, without path or query.`, { alg, kid: kid.slice(0, 200) });
  }
  if ('a2aUnder' in rules.kid) {
    // A2A kids are often bare ("key-1"): read them as fragments of the signer the caller fixed.
    const signer = rules.kid.a2aUnder;
    const absolute = kid.startsWith('#') ? `${signer}${kid}` : kid.includes(':') ? kid : `${signer}#${kid}`;
    if (!isKidUnderSigner(absolute, signer)) return reject('JWS_KID_INVALID', pointer, `"kid" must name a key of "${signer}" (a fragment, or the signer, "#" and a fragment).`, { alg, kid: kid.slice(0, 200) });
    return { alg, kid: absolute };
  }
  return { alg, kid };
}

/** `kid` = exact signer + `#` + a non-empty fragment with no path, query or second `#`. */
export function isKidUnderSigner(kid: string, signer: string): boolean {
  if (!kid.startsWith(`${signer}#`)) return false;
  const fragment = kid.slice(signer.length + 1);
  return /^[A-Za-z0-9._~!$&'()*+,;=:@%-]+$/.test(fragment);
}
