/**
 * Key resolution (CARDS.md §3.3): a root did:web signer's DID document, or a JWK Set at a location the
 * caller fixed, fetched only through an injected `KeyDocumentResolver`; then the one public key whose id is
 * the JWS `kid`, with every constraint on where it is listed and what it may be used for.
 */
import { reject, type SignatureAlg, type SignatureRejected } from './signature.codes';
import { decodeBase64Url } from './jws.header';

/**
 * Fetches a key document (DID document or JWK Set) by URL and returns its parsed JSON, or `undefined` when
 * it cannot be had. Network implementations must be HTTPS-only and refuse private addresses (§3.3).
 */
export type KeyDocumentResolver = (url: string) => Promise<unknown>;

/** A resolver over fixed documents (URL -> parsed JSON), for offline use and tests. */
export function mapResolver(record: Readonly<Record<string, unknown>>): KeyDocumentResolver {
  return async (url) => (Object.prototype.hasOwnProperty.call(record, url) ? record[url] : undefined);
}

/** Where the key comes from: the signer's did:web document, or a JWK Set URL fixed by the registry. */
export type KeySource = { kind: 'did-web'; signer: string } | { kind: 'jwks'; url: string; signer: string };

/** A public key ready for import: only the public members, checked. */
export type PublicJwk = { kty: 'EC'; crv: 'P-256'; x: string; y: string } | { kty: 'OKP'; crv: 'Ed25519'; x: string };

const DOMAIN_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * `https://{domain}/.well-known/did.json` for a root did:web (lowercase ASCII domain, A-labels allowed; no
 * port, IP address, path or trailing dot); `undefined` for anything else.
 */
export function didWebDocumentUrl(did: string): string | undefined {
  if (!did.startsWith('did:web:')) return undefined;
  const domain = did.slice('did:web:'.length);
  if (domain.length === 0 || domain.length > 253 || domain.endsWith('.')) return undefined;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return undefined;
  // A numeric last label is an IPv4 address (or nothing a public domain can be).
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? '')) return undefined;
  return `https://${domain}/.well-known/did.json`;
}

async function fetchDocument(resolver: KeyDocumentResolver, url: string, pointer: string, known: { signer: string; kid: string; alg: string }): Promise<{ document: Record<string, unknown> } | SignatureRejected> {
  let document: unknown;
  try {
    document = await resolver(url);
  } catch {
    document = undefined;
  }
  if (document === undefined || document === null) return reject('KEY_DOCUMENT_UNAVAILABLE', pointer, `The key document ${url} could not be obtained.`, known);
  if (typeof document !== 'object' || Array.isArray(document)) return reject('KEY_DOCUMENT_INVALID', pointer, `The key document ${url} is not a JSON object.`, known);
  return { document: document as Record<string, unknown> };
}

/** Resolves and checks the public key for `kid` under `alg`; never throws. */
export async function resolveVerificationKey(source: KeySource, kid: string, alg: SignatureAlg, resolver: KeyDocumentResolver, pointer: string): Promise<PublicJwk | SignatureRejected> {
  const known = { signer: source.signer, kid, alg };
  if (source.kind === 'jwks') {
    const fetched = await fetchDocument(resolver, source.url, pointer, known);
    if ('verified' in fetched) return fetched;
    return selectFromJwks(fetched.document, kid, alg, pointer, known);
  }
  const url = didWebDocumentUrl(source.signer);
  if (url === undefined) return reject('SIGNER_NOT_DID_WEB', pointer, `The signer "${source.signer.slice(0, 200)}" is not a root did:web (lowercase domain; no port, IP address, path or trailing dot).`, known);
  const fetched = await fetchDocument(resolver, url, pointer, known);
  if ('verified' in fetched) return fetched;
  return selectFromDidDocument(fetched.document, source.signer, kid, alg, pointer, known);
}

function resolveId(id: unknown, documentId: string): string | undefined {
  if (typeof id !== 'string') return undefined;
  return id.startsWith('#') ? `${documentId}${id}` : id;
}

const RELATIONSHIPS = ['assertionMethod', 'authentication', 'keyAgreement', 'capabilityInvocation', 'capabilityDelegation'] as const;

function selectFromDidDocument(document: Record<string, unknown>, signer: string, kid: string, alg: SignatureAlg, pointer: string, known: { signer: string; kid: string; alg: string }): PublicJwk | SignatureRejected {
  if (document['id'] !== signer) return reject('KEY_DOCUMENT_INVALID', pointer, `The DID document's "id" must equal the signer "${signer}".`, known);
  const candidates: Array<{ method: Record<string, unknown>; embeddedIn?: string }> = [];
  const collect = (list: unknown, embeddedIn?: string) => {
    if (!Array.isArray(list)) return;
    for (const item of list) {
      if (item !== null && typeof item === 'object' && !Array.isArray(item) && resolveId((item as Record<string, unknown>)['id'], signer) === kid) {
        candidates.push({ method: item as Record<string, unknown>, ...(embeddedIn ? { embeddedIn } : {}) });
      }
    }
  };
  collect(document['verificationMethod']);
  for (const relationship of RELATIONSHIPS) collect(document[relationship], relationship);
  if (candidates.length === 0) return reject('KEY_NOT_FOUND', pointer, `The signer's DID document has no verification method "${kid}" (it may have been removed).`, known);
  if (candidates.length > 1) return reject('KEY_AMBIGUOUS', pointer, `The signer's DID document defines "${kid}" more than once.`, known);
  const [{ method, embeddedIn } = { method: {} }] = candidates;
  const assertion = document['assertionMethod'];
  const listed = embeddedIn === 'assertionMethod' || (Array.isArray(assertion) && assertion.some((ref) => typeof ref === 'string' && resolveId(ref, signer) === kid));
  if (!listed) return reject('KEY_NOT_ASSERTION_METHOD', pointer, `The key "${kid}" is not listed under "assertionMethod"; keys only for authentication or key agreement cannot sign documents.`, known);
  if (method['controller'] !== signer) return reject('KEY_CONTROLLER_MISMATCH', pointer, `The key "${kid}" must have "controller" equal to the signer "${signer}".`, known);
  return checkPublicJwk(method['publicKeyJwk'], alg, pointer, known);
}

function selectFromJwks(document: Record<string, unknown>, kid: string, alg: SignatureAlg, pointer: string, known: { signer: string; kid: string; alg: string }): PublicJwk | SignatureRejected {
  const keys = document['keys'];
  if (!Array.isArray(keys)) return reject('KEY_DOCUMENT_INVALID', pointer, 'The JWK Set has no "keys" array.', known);
  const matches = keys.filter((key) => key !== null && typeof key === 'object' && (key as Record<string, unknown>)['kid'] === kid);
  if (matches.length === 0) return reject('KEY_NOT_FOUND', pointer, `The JWK Set has no key "${kid}" (it may have been removed).`, known);
  if (matches.length > 1) return reject('KEY_AMBIGUOUS', pointer, `The JWK Set has more than one key "${kid}".`, known);
  return checkPublicJwk(matches[0], alg, pointer, known);
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Checks a JWK for `alg`: key type and curve, 32-byte coordinates, no private parts, alg/use/key_ops. */
export function checkPublicJwk(jwk: unknown, alg: SignatureAlg, pointer: string, known: { signer?: string; kid?: string; alg?: string } = {}): PublicJwk | SignatureRejected {
  const bad = (why: string) => reject('KEY_INVALID', pointer, `The public key cannot be used: ${why}.`, known);
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) return bad('there is no "publicKeyJwk" object');
  const key = jwk as Record<string, unknown>;
  if (PRIVATE_MEMBERS.some((member) => member in key)) return bad('it holds private key material, which must never be published');
  const coordinate = (name: string) => typeof key[name] === 'string' && decodeBase64Url(key[name] as string)?.length === 32;
  let checked: PublicJwk;
  if (alg === 'ES256') {
    if (key['kty'] !== 'EC' || key['crv'] !== 'P-256') return bad('ES256 needs "kty": "EC" and "crv": "P-256"');
    if (!coordinate('x') || !coordinate('y')) return bad('"x" and "y" must be 32-byte base64url coordinates');
    checked = { kty: 'EC', crv: 'P-256', x: key['x'] as string, y: key['y'] as string };
  } else {
    if (key['kty'] !== 'OKP' || key['crv'] !== 'Ed25519') return bad('EdDSA needs "kty": "OKP" and "crv": "Ed25519"');
    if (!coordinate('x')) return bad('"x" must be a 32-byte base64url public key');
    checked = { kty: 'OKP', crv: 'Ed25519', x: key['x'] as string };
  }
  if ('alg' in key && !(alg === 'ES256' ? key['alg'] === 'ES256' : key['alg'] === 'EdDSA' || key['alg'] === 'Ed25519')) return bad(`its "alg" is not ${alg}`);
  if ('use' in key && key['use'] !== 'sig') return bad('its "use" is not "sig"');
  if ('key_ops' in key && !(Array.isArray(key['key_ops']) && key['key_ops'].includes('verify'))) return bad('its "key_ops" do not include "verify"');
  return checked;
}
