/**
 * How long a proof stands (CARDS.md §5: proofs are "re-checked periodically"). A record is `valid` until its re-check
 * is due, `due` from then until it expires (still honoured, so a slow DNS change does not unlist a publisher at once),
 * and `expired` afterwards. Pure: the caller passes `now`.
 */
import type { ProofMethod, ProofOutcome } from './ownership.types';

export interface ProofPolicy {
  /** After this long a proof should be checked again. Default 24 h. */
  readonly recheckIntervalMs: number;
  /** After this long without a successful check the proof no longer counts. Default 30 days. */
  readonly validityMs: number;
}

export const DEFAULT_PROOF_POLICY: ProofPolicy = { recheckIntervalMs: 24 * 3600 * 1000, validityMs: 30 * 24 * 3600 * 1000 };

export interface ProofRecord {
  readonly namespace: string;
  readonly method: ProofMethod;
  readonly grantsSubdomains: boolean;
  /** RFC 3339. */
  readonly verifiedAt: string;
  readonly expiresAt: string;
}

export type ProofStatus = 'valid' | 'due' | 'expired';

/** The record to store after a successful check. */
export function proofRecordFrom(namespace: string, outcome: Extract<ProofOutcome, { ok: true }>, policy: ProofPolicy = DEFAULT_PROOF_POLICY): ProofRecord {
  const verifiedAt = new Date(outcome.checkedAt);
  return {
    namespace,
    method: outcome.method,
    grantsSubdomains: outcome.grantsSubdomains,
    verifiedAt: verifiedAt.toISOString(),
    expiresAt: new Date(verifiedAt.getTime() + policy.validityMs).toISOString(),
  };
}

export function proofStatus(record: Pick<ProofRecord, 'verifiedAt' | 'expiresAt'>, now: Date, policy: ProofPolicy = DEFAULT_PROOF_POLICY): ProofStatus {
  const verifiedAt = Date.parse(record.verifiedAt);
  const expiresAt = Date.parse(record.expiresAt);
  const at = now.getTime();
  // An unreadable timestamp cannot prove anything.
  if (Number.isNaN(verifiedAt) || Number.isNaN(expiresAt) || at >= expiresAt) return 'expired';
  return at >= verifiedAt + policy.recheckIntervalMs ? 'due' : 'valid';
}
