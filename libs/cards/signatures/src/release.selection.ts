/**
 * Multiple manifests per contributor (CARDS.md §3.4.9): keep, whole, the one with the newest acceptable
 * `issuedAt`, and refuse a release older than the newest one already accepted, so it cannot be replayed.
 */
import { rfc3339Instant } from './signature-object.check';
import { reject, type SignatureRejected } from './signature.codes';

export interface ManifestCandidate {
  contributor: string;
  /** `signature.issuedAt` of a manifest that verified. */
  issuedAt: string;
  /** Where the manifest sits (e.g. `/entries/0/trustManifests/2`). */
  pointer: string;
}

export interface ReleaseSelection<T extends ManifestCandidate> {
  /** One manifest per contributor: its newest acceptable release. */
  kept: T[];
  /** Older releases set aside (not errors). */
  superseded: T[];
  /** Contributors whose newest release here is older than one already accepted. */
  replayed: Array<{ candidate: T; rejection: SignatureRejected }>;
}

/**
 * Picks per contributor the verified manifest with the newest `issuedAt`. `accepted` maps a contributor to the
 * newest `issuedAt` the registry already accepted; an older pick is refused as a replay (an equal one is the
 * same release seen again).
 */
export function selectNewestReleases<T extends ManifestCandidate>(candidates: readonly T[], accepted: Readonly<Record<string, string>> = {}): ReleaseSelection<T> {
  const newest = new Map<string, { candidate: T; instant: number }>();
  const superseded: T[] = [];
  for (const candidate of candidates) {
    const instant = rfc3339Instant(candidate.issuedAt);
    if (instant === undefined) continue;
    const current = newest.get(candidate.contributor);
    if (current === undefined || instant > current.instant) {
      if (current) superseded.push(current.candidate);
      newest.set(candidate.contributor, { candidate, instant });
    } else {
      superseded.push(candidate);
    }
  }
  const kept: T[] = [];
  const replayed: ReleaseSelection<T>['replayed'] = [];
  for (const [contributor, { candidate, instant }] of newest) {
    const recorded = Object.prototype.hasOwnProperty.call(accepted, contributor) ? rfc3339Instant(accepted[contributor]) : undefined;
    if (recorded !== undefined && instant < recorded) {
      replayed.push({
        candidate,
        rejection: reject('SIGNATURE_REPLAYED', `${candidate.pointer}/signature/issuedAt`, `This release (issued ${candidate.issuedAt}) is older than one already accepted from ${contributor}; an older release cannot replace a newer one.`, { signer: contributor }),
      });
    } else {
      kept.push(candidate);
    }
  }
  return { kept, superseded, replayed };
}
