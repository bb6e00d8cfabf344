/**
 * Verifies the signature a published document carries (CARDS.md §3) with `@trustmesh/cards-signatures` and
 * turns the result into the `SignatureRecord` stored with the revision: a v1 AI Card's detached JWS
 * (§3.5, signer `publisher.id` or `id`), every signature of an A2A AgentCard against the did:web of the
 * card's namespace (§3.6, verified when one verifies), and an AI Catalog's root signature (§3.4). MCP
 * server.json documents carry none. The document is the one parsed from the exact published bytes (§3.6
 * "verify the card exactly as fetched").
 */
import { didWebDocumentUrl, verifyA2aCardSignatures, verifyAiCardSignature, verifyCatalogSignature, type SignatureResult } from '@trustmesh/cards-signatures';

import type { SignatureRecord } from '../domain/namespace-trust';
import type { KeyDocumentFetch, TrustNetwork } from './trust-network';

export interface SignatureSubject {
  kind: string;
  /** The document parsed from the published bytes. */
  document: unknown;
  namespace: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether the document carries something to verify (absent signatures are a policy matter, not a failure). */
export function carriesSignature(subject: SignatureSubject): boolean {
  if (!isObject(subject.document)) return false;
  if (subject.kind === 'a2a') {
    const signatures = subject.document['signatures'];
    return signatures !== undefined && !(Array.isArray(signatures) && signatures.length === 0);
  }
  if (subject.kind === 'ai-card' || subject.kind === 'ai-catalog') return 'signature' in subject.document;
  return false;
}

function recordOf(result: SignatureResult, fetched: ReadonlyMap<string, KeyDocumentFetch>, checkedAt: string, signatures?: number): SignatureRecord {
  const signer = result.signer;
  const keyUrl = signer !== undefined ? didWebDocumentUrl(signer) : undefined;
  const document = keyUrl !== undefined ? fetched.get(keyUrl) : undefined;
  return {
    verified: result.verified,
    ...(signer !== undefined ? { signer } : {}),
    ...(result.kid !== undefined ? { kid: result.kid } : {}),
    ...(result.alg !== undefined ? { alg: result.alg } : {}),
    checkedAt,
    ...(result.verified ? {} : { code: result.code, pointer: result.pointer }),
    ...(keyUrl !== undefined ? { keyUrl } : {}),
    ...(document?.ok ? { keyDigest: document.digest } : {}),
    ...(signatures !== undefined ? { signatures } : {}),
  };
}

/**
 * The outcome for a document that carries a signature, with the message of a failure (never stored: it is
 * the library's sentence for the publisher). `preloaded` key documents are used instead of fetching them.
 */
export async function verifyDocumentSignature(
  subject: SignatureSubject,
  network: TrustNetwork,
  now: Date,
  preloaded?: ReadonlyMap<string, KeyDocumentFetch>,
): Promise<{ record: SignatureRecord; message?: string }> {
  const { resolver, fetched } = network.recordingResolver(preloaded);
  const checkedAt = now.toISOString();
  if (subject.kind === 'a2a') {
    const outcome = await verifyA2aCardSignatures(subject.document, { resolver, keySource: { kind: 'did-web', signer: `did:web:${subject.namespace}` }, now });
    const chosen = outcome.results.find((result) => result.verified) ?? outcome.results[0];
    if (!chosen) return { record: { verified: false, checkedAt, code: 'SIGNATURE_ABSENT', pointer: '/signatures' } };
    return { record: recordOf(chosen, fetched, checkedAt, outcome.results.length), ...(chosen.verified ? {} : { message: chosen.message }) };
  }
  const result = subject.kind === 'ai-catalog' ? await verifyCatalogSignature(subject.document, { resolver, now }) : await verifyAiCardSignature(subject.document, { resolver, now });
  return { record: recordOf(result, fetched, checkedAt), ...(result.verified ? {} : { message: result.message }) };
}
