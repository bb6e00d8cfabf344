/**
 * The per-namespace signature policy applied on publish (CARDS.md §3.6 "set a per-namespace policy (off,
 * verify-if-present, require)", §5 "Signature verification"):
 *
 * - `off`: nothing is verified or recorded;
 * - `verify-if-present` (default): an unsigned document is published unverified; a signed one is verified
 *   and refused (422 SIGNATURE_INVALID) when its signature is wrong, except that a key document that
 *   cannot be fetched right now is not the publisher's mistake: the revision is stored unverified, with
 *   the code and a warning, and the background re-verification picks it up once the document is reachable;
 * - `require`: unsigned is 422 SIGNATURE_REQUIRED, and any failure (unreachable key documents included)
 *   is 422 SIGNATURE_INVALID.
 *
 * Refusals carry the signature code (`signatureCode`, and as the issue's code with its JSON pointer).
 */
import type { SignaturePolicy, SignatureRecord } from '../domain/namespace-trust';
import type { ProblemIssue, ServiceFailure } from '../service/registry-service.result';
import { carriesSignature, verifyDocumentSignature, type SignatureSubject } from './card-signature.verifier';
import type { TrustNetwork } from './trust-network';

export type SignatureGateResult = { ok: true; signature?: SignatureRecord; warnings: ProblemIssue[] } | { ok: false; failure: ServiceFailure };

export interface PublishSignatureGate {
  check(subject: SignatureSubject, policy: SignaturePolicy): Promise<SignatureGateResult>;
}

const TRANSIENT_CODES = new Set(['KEY_DOCUMENT_UNAVAILABLE']);

export function signaturePolicyGate(network: TrustNetwork, now: () => Date): PublishSignatureGate {
  return {
    async check(subject, policy) {
      if (policy === 'off') return { ok: true, warnings: [] };
      if (!carriesSignature(subject)) {
        if (policy !== 'require') return { ok: true, warnings: [] };
        const pointer = subject.kind === 'a2a' ? '/signatures' : '/signature';
        const message = `Namespace ${subject.namespace} requires signed documents; sign this one (CARDS.md §3) and publish it again`;
        return { ok: false, failure: { kind: 'unprocessable', code: 'SIGNATURE_REQUIRED', detail: message, issues: [{ path: pointer, code: 'SIGNATURE_ABSENT', severity: 'error', message }], extra: { signatureCode: 'SIGNATURE_ABSENT' } } };
      }
      const { record, message } = await verifyDocumentSignature(subject, network, now());
      if (record.verified) return { ok: true, signature: record, warnings: [] };
      const code = record.code ?? 'SIGNATURE_INVALID';
      const text = message ?? 'The signature does not verify';
      const issue: ProblemIssue = { path: record.pointer ?? '', code, severity: policy === 'require' || !TRANSIENT_CODES.has(code) ? 'error' : 'warning', message: text };
      if (issue.severity === 'warning') return { ok: true, signature: record, warnings: [issue] };
      return { ok: false, failure: { kind: 'unprocessable', code: 'SIGNATURE_INVALID', detail: `The document's signature does not verify (${code})`, issues: [issue], extra: { signatureCode: code } } };
    },
  };
}
