/**
 * How a stored signature outcome is shown in reads (CARDS.md §5 "store signer, kid, time and outcome"):
 * signer, kid, alg, when it was verified (or checked, for a failure), the signature code of a failure, and
 * the key document it was checked against. The document's digest stays internal (re-verification only).
 */
import type { SignatureRecord } from '../domain/namespace-trust';

export interface SignatureView {
  verified: boolean;
  signer?: string;
  kid?: string;
  alg?: string;
  /** When the signature last verified (absent for a failure). */
  verifiedAt?: string;
  checkedAt: string;
  code?: string;
  pointer?: string;
  keyUrl?: string;
  signatures?: number;
}

export function signatureView(record: SignatureRecord): SignatureView {
  return {
    verified: record.verified,
    ...(record.signer !== undefined ? { signer: record.signer } : {}),
    ...(record.kid !== undefined ? { kid: record.kid } : {}),
    ...(record.alg !== undefined ? { alg: record.alg } : {}),
    ...(record.verified ? { verifiedAt: record.checkedAt } : {}),
    checkedAt: record.checkedAt,
    ...(record.code !== undefined ? { code: record.code } : {}),
    ...(record.pointer !== undefined ? { pointer: record.pointer } : {}),
    ...(record.keyUrl !== undefined ? { keyUrl: record.keyUrl } : {}),
    ...(record.signatures !== undefined ? { signatures: record.signatures } : {}),
  };
}
