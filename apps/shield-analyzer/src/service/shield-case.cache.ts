/**
 * The cases a Shield analyzer keeps folded in memory (`ShieldCaseService.load`), least recently used dropped
 * first, bounded by an estimate of their size rather than by their number.
 *
 * A bound by number (it was 256 cases) made the cache useless as soon as more cases were in play than it
 * held: a round that opens a few hundred cases and then consults each of them in turn evicted every case
 * just before its consult, so each consult read its whole stream again (`bench:shield`). A size budget keeps
 * as many cases as fit: small cases many, large ones few, and the memory stays bounded whatever they hold.
 *
 * The size of a case is the length of its JSON as it was stored (the events it was folded from): close to
 * the record's own size, and known where the events are at hand anyway. A kept case is only ever a shortcut:
 * the store refuses an append decided on a stale one (optimistic concurrency), so what is dropped or kept
 * changes how often the store is read, never what is written.
 */
import type { ShieldCase, ShieldConsultation, ShieldOutcome } from '@trustmesh/shield-records';

/** A case as its stream said at `version`, and the account that opened it. */
export interface FoldedCase {
  state: ShieldCase;
  version: number;
  consultations: readonly ShieldConsultation[];
  outcomes: readonly ShieldOutcome[];
  owner: string;
}

export interface ShieldCaseCacheOptions {
  /** The most JSON characters kept over all cases (their events as stored). */
  maxChars: number;
  /** A case with more consultations than this is read whole each time instead. */
  maxConsultations: number;
}

/** 16 Mi characters of case JSON: thousands of typical cases, a bounded share of the process's memory. */
export const SHIELD_CASE_CACHE_DEFAULTS: ShieldCaseCacheOptions = { maxChars: 16 * 1024 * 1024, maxConsultations: 20 };

interface Entry {
  folded: FoldedCase;
  chars: number;
}

export class ShieldCaseCache {
  /** Insertion order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  constructor(private readonly options: ShieldCaseCacheOptions = SHIELD_CASE_CACHE_DEFAULTS) {}

  /** The case kept for `caseId`, now the most recently used; undefined when none is kept. */
  get(caseId: string): (FoldedCase & { chars: number }) | undefined {
    const entry = this.entries.get(caseId);
    if (!entry) return undefined;
    this.entries.delete(caseId);
    this.entries.set(caseId, entry);
    return { ...entry.folded, chars: entry.chars };
  }

  /**
   * Keeps `folded` (replacing what was kept for the case), `chars` long as JSON; drops the least recently
   * used cases until the budget holds. A case beyond the per-case bounds is not kept at all.
   */
  set(caseId: string, folded: FoldedCase, chars: number): void {
    this.delete(caseId);
    if (folded.consultations.length > this.options.maxConsultations || chars > this.options.maxChars) return;
    this.entries.set(caseId, { folded, chars });
    this.chars += chars;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.options.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= entry.chars;
    }
  }

  /** Forgets the case (another writer moved it: the next load reads it from the store). */
  delete(caseId: string): void {
    const entry = this.entries.get(caseId);
    if (!entry) return;
    this.entries.delete(caseId);
    this.chars -= entry.chars;
  }

  /** How many cases and JSON characters are kept. */
  get size(): { cases: number; chars: number } {
    return { cases: this.entries.size, chars: this.chars };
  }
}
