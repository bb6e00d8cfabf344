/**
 * Which revision of a card is the latest (CARDS.md §2.3 "Latest = highest SemVer, else newest updatedAt",
 * §5 "yanked: hidden from latest"): among the revisions that are neither yanked nor deleted, the highest
 * SemVer when every candidate's key is one, else the newest `updatedAt` (AI Card v1), else the last published.
 */
import { compare, valid } from 'semver';

export const CARD_STATUSES = ['active', 'deprecated', 'yanked', 'deleted'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

export interface RevisionOrderFacts {
  revision: string;
  status: CardStatus;
  /** Epoch milliseconds of the document's `updatedAt`, when it has one. */
  updatedAtMs?: number;
  /** Stream version of its publication: the order of publishing. */
  publishedVersion: number;
}

export const isVisibleInLatest = (status: CardStatus) => status === 'active' || status === 'deprecated';

export function latestRevision<R extends RevisionOrderFacts>(revisions: readonly R[]): R | null {
  const candidates = revisions.filter((revision) => isVisibleInLatest(revision.status));
  if (candidates.length === 0) return null;
  if (candidates.every((revision) => valid(revision.revision) !== null)) {
    return candidates.reduce((best, next) => (compare(next.revision, best.revision) > 0 ? next : best));
  }
  const byTime = (revision: R) => revision.updatedAtMs ?? Number.NEGATIVE_INFINITY;
  return candidates.reduce((best, next) => {
    if (byTime(next) !== byTime(best)) return byTime(next) > byTime(best) ? next : best;
    return next.publishedVersion > best.publishedVersion ? next : best;
  });
}
