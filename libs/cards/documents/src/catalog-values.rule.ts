/**
 * Value rules of the final AI Catalog (CARDS.md §2.3) shared by entries, subjects and attestations:
 * digests as `alg:lowerhex` no weaker than SHA-256, extension keys as URLs or reverse-DNS names, and the
 * Signature object (signer URI, profile, issuedAt < expiresAt, jws).
 */
import { childPointer, type IssueList } from './document.issue';
import { clip, FieldReader, isAbsoluteUri, type JsonObject } from './document-fields.reader';

/** Accepted digest algorithms and their hex length; both the IANA ("sha-256") and the compact ("sha256") names. */
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = {
  'sha-256': 64, sha256: 64, 'sha-384': 96, sha384: 96, 'sha-512': 128, sha512: 128,
  'sha3-256': 64, 'sha3-384': 96, 'sha3-512': 128,
};
const WEAK_DIGESTS = ['md5', 'sha1', 'sha-1', 'sha224', 'sha-224', 'md4', 'sha3-224'];

export const DID_WEB_PROFILE = 'did-web-v1';

/** A digest string `alg:lowerhex` with an accepted algorithm; reports DIGEST_WEAK or DIGEST_INVALID. */
export function checkDigest(parent: JsonObject, key: string, path: string, fields: FieldReader): string | undefined {
  const digest = fields.string(parent, key, path, false);
  if (digest === undefined) return undefined;
  const at = childPointer(path, key);
  const colon = digest.indexOf(':');
  const alg = colon > 0 ? digest.slice(0, colon) : '';
  const hex = digest.slice(colon + 1);
  if (WEAK_DIGESTS.includes(alg.toLowerCase())) {
    fields.issues.error(at, 'DIGEST_WEAK', `Digest algorithm "${alg}" is weaker than SHA-256 and is refused; use sha-256 or stronger.`);
    return undefined;
  }
  const expected = DIGEST_HEX_LENGTH[alg];
  if (expected === undefined || hex.length !== expected || !/^[0-9a-f]+$/.test(hex)) {
    fields.issues.error(
      at,
      'DIGEST_INVALID',
      `"${key}" must be "alg:lowerhex" with alg sha-256, sha-384 or sha-512 and the full lowercase hex value, not "${clip(digest)}".`,
    );
    return undefined;
  }
  return digest;
}

const REVERSE_DNS = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+(?:\/[A-Za-z0-9._~-]+)*$/;

export function isExtensionKey(key: string): boolean {
  return (isAbsoluteUri(key) && /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]/.test(key)) || REVERSE_DNS.test(key);
}

export const METADATA_EXTENSION = 'https://ai-catalog.org/extensions/metadata';
export const POLICY_URLS_EXTENSION = 'https://ai-catalog.org/extensions/policy-urls';

/** `extensions`: an object whose keys are URLs or reverse-DNS names; unknown keys are kept, never interpreted. */
export function checkExtensions(parent: JsonObject, path: string, fields: FieldReader): JsonObject | undefined {
  const extensions = fields.member(parent, 'extensions', path, false);
  if (!extensions) return undefined;
  const at = childPointer(path, 'extensions');
  for (const key of Object.keys(extensions)) {
    if (!isExtensionKey(key)) {
      fields.issues.error(childPointer(at, key), 'EXTENSION_KEY_INVALID', `Extension key "${clip(key)}" must be a URL or a reverse-DNS name (e.g. com.example.registry).`);
    }
  }
  const policyUrls = extensions[POLICY_URLS_EXTENSION];
  if (policyUrls !== undefined) {
    const policyAt = childPointer(at, POLICY_URLS_EXTENSION);
    const policy = fields.object(policyUrls, policyAt, 'The policy-urls extension');
    if (policy) {
      fields.uri(policy, 'privacyPolicyUrl', policyAt, false);
      fields.uri(policy, 'termsOfServiceUrl', policyAt, false);
    }
  }
  if (extensions[METADATA_EXTENSION] !== undefined) fields.object(extensions[METADATA_EXTENSION], childPointer(at, METADATA_EXTENSION), 'The metadata extension');
  return extensions;
}

/** A Signature object (manifest or catalog root); its cryptographic checks belong to the signatures library. */
export function checkSignatureObject(signature: JsonObject, at: string, fields: FieldReader): void {
  fields.uri(signature, 'signer', at, true);
  const profile = fields.string(signature, 'profile', at, true);
  // Profiles are compared exactly and never inferred (CARDS.md §3.4.1): "did-web-v1" or an absolute URI.
  if (profile !== undefined && profile !== DID_WEB_PROFILE && !isAbsoluteUri(profile)) {
    fields.issues.error(childPointer(at, 'profile'), 'SIGNATURE_PROFILE_INVALID', `"profile" must be "${DID_WEB_PROFILE}" or an absolute URI naming the profile, not "${clip(profile)}".`);
  }
  const issuedAt = fields.timestamp(signature, 'issuedAt', at, true);
  const expiresAt = fields.timestamp(signature, 'expiresAt', at, false);
  if (issuedAt !== undefined && expiresAt !== undefined && expiresAt <= issuedAt) {
    fields.issues.error(childPointer(at, 'expiresAt'), 'TIMESTAMP_ORDER', '"expiresAt" must be later than "issuedAt".');
  }
  fields.string(signature, 'jws', at, true, true);
}

/** The optional root or manifest `signature` member, which must be a Signature object. */
export function checkSignatureMember(parent: JsonObject, path: string, issues: IssueList): boolean {
  const fields = new FieldReader(issues);
  const signature = fields.member(parent, 'signature', path, false);
  if (signature) checkSignatureObject(signature, childPointer(path, 'signature'), fields);
  return parent['signature'] !== undefined;
}
