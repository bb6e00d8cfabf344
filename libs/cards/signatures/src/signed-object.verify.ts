/**
 * Verification of objects carrying a Signature object: trust manifests (CARDS.md §3.4.1–3.4.6) and catalog
 * roots (§3.4.7). Cheap local checks run first, so a document that fails them costs no key fetch.
 */
import { verifyDetachedCompact } from './jws.verify';
import type { KeyDocumentResolver } from './key.resolution';
import { canonicalBytes, isJsonObject, signedObjectPayload } from './payload.canonical';
import { checkValidityWindow, readSignatureObject, type SignedObjectPolicy } from './signature-object.check';
import { reject, type SignatureResult, type SignatureVerified } from './signature.codes';
import { checkSubjectBinding } from './subject.binding';

export interface SignedObjectVerifyOptions extends SignedObjectPolicy {
  resolver: KeyDocumentResolver;
  /** JSON pointer of the object within the document it came from (for messages); default "". */
  pointer?: string;
}

export interface TrustManifestVerifyOptions extends SignedObjectVerifyOptions {
  /** The catalog entry holding the manifest. */
  entry: unknown;
  /** The exact bytes fetched from `entry.url`, needed when the subject is bound by digest. */
  artifactBytes?: Uint8Array;
}

/** A verified manifest also says whether the signer speaks with publisher authority (§3.4.6). */
export type TrustManifestResult = (SignatureVerified & { publisherAuthority: boolean }) | Exclude<SignatureResult, SignatureVerified>;

/**
 * Publisher Profile (§3.4.6): entry `urn:air:{d}:…` and signer exactly `did:web:{d}`, no subdomain heuristics.
 * Any other valid signer is an assessor: its signature endorses claims, not publisher authority.
 */
export function isPublisherSigner(entryIdentifier: unknown, signer: string): boolean {
  if (typeof entryIdentifier !== 'string' || !entryIdentifier.startsWith('urn:air:')) return false;
  const domain = entryIdentifier.slice('urn:air:'.length).split(':')[0];
  return domain !== undefined && domain !== '' && signer === `did:web:${domain}`;
}

/** Verifies a trust manifest's signature and its binding to `options.entry`; never throws. */
export async function verifyTrustManifest(manifest: unknown, options: TrustManifestVerifyOptions): Promise<TrustManifestResult> {
  const base = options.pointer ?? '';
  if (!isJsonObject(manifest)) return reject('DOCUMENT_INVALID', base, 'A trust manifest must be a JSON object.');
  const read = readSignatureObject(manifest['signature'], `${base}/signature`, options);
  if ('verified' in read) return read;
  const { signature } = read;
  const known = { signer: signature.signer };
  if (signature.signer !== manifest['contributor']) {
    return reject('SIGNER_CONTRIBUTOR_MISMATCH', `${base}/signature/signer`, '"signature.signer" must equal the manifest\'s "contributor" exactly (case-sensitive, no normalisation).', known);
  }
  const binding = await checkSubjectBinding(manifest, options.entry, options.artifactBytes, base);
  if (binding) return { ...binding, ...known };
  const window = checkValidityWindow(read.issuedAt, read.expiresAt, `${base}/signature`, options, signature.signer);
  if (window) return window;
  const payload = canonicalBytes(signedObjectPayload(manifest), base);
  if ('verified' in payload) return payload;
  const result = await verifyDetachedCompact(signature.jws, {
    payload: payload.bytes,
    rules: { kind: 'trust-manifest', algs: read.algs, kid: { signerFragment: signature.signer } },
    keySource: { kind: 'did-web', signer: signature.signer },
    resolver: options.resolver,
    now: options.now ?? new Date(),
    pointer: `${base}/signature/jws`,
  });
  if (!result.verified) return result;
  const entryIdentifier = isJsonObject(options.entry) ? options.entry['identifier'] : undefined;
  return { ...result, profile: signature.profile, issuedAt: signature.issuedAt, publisherAuthority: isPublisherSigner(entryIdentifier, signature.signer) };
}

/** Verifies a catalog's root signature under the Catalog Profile (§3.4.7); never throws. */
export async function verifyCatalogSignature(catalog: unknown, options: SignedObjectVerifyOptions): Promise<SignatureResult> {
  const base = options.pointer ?? '';
  if (!isJsonObject(catalog)) return reject('DOCUMENT_INVALID', base, 'A catalog must be a JSON object.');
  const read = readSignatureObject(catalog['signature'], `${base}/signature`, options);
  if ('verified' in read) return read;
  const { signature } = read;
  const host = catalog['host'];
  if (!isJsonObject(host) || host['identifier'] !== signature.signer) {
    return reject('HOST_SIGNER_MISMATCH', `${base}/host/identifier`, '"host.identifier" must equal the catalog\'s "signature.signer" exactly.', { signer: signature.signer });
  }
  const window = checkValidityWindow(read.issuedAt, read.expiresAt, `${base}/signature`, options, signature.signer);
  if (window) return window;
  const payload = canonicalBytes(signedObjectPayload(catalog), base);
  if ('verified' in payload) return payload;
  const result = await verifyDetachedCompact(signature.jws, {
    payload: payload.bytes,
    rules: { kind: 'catalog', algs: read.algs, kid: { signerFragment: signature.signer } },
    keySource: { kind: 'did-web', signer: signature.signer },
    resolver: options.resolver,
    now: options.now ?? new Date(),
    pointer: `${base}/signature/jws`,
  });
  return result.verified ? { ...result, profile: signature.profile, issuedAt: signature.issuedAt } : result;
}
