/**
 * A memory bound shared by every workspace of the process: each holder (a workspace's frames ring, its
 * retained interactions) adds and removes the bytes it keeps, and when the sum passes the limit the
 * process gives up the oldest entries of the largest holders first (`relieve`). A tenant that holds the
 * most loses the most; a small workspace keeps what it has while a large one is cut down to its level.
 *
 * Pure: no I/O.
 */

/** Relief goes below the limit (to this share of it), so the next few entries do not start another one. */
const RELIEF_TARGET = 0.9;

export class ByteBudget {
  private usedBytes = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.usedBytes;
  }

  get over(): boolean {
    return this.usedBytes > this.limit;
  }

  add(bytes: number): void {
    this.usedBytes += bytes;
  }
}

export interface BudgetHolder {
  readonly bytes: number;
  /** Gives up the holder's oldest entries until it keeps at most `bytes`. */
  shrinkTo(bytes: number): void;
}

/**
 * Brings the budget back under its limit when it is over: the largest holders are cut to one common level,
 * the highest for which what everyone keeps fits in 90 % of the limit; holders below that level keep all.
 * Returns how many holders were cut.
 */
export function relieve(budget: ByteBudget, holders: Iterable<BudgetHolder>): number {
  if (!budget.over) return 0;
  const sorted = [...holders].filter((holder) => holder.bytes > 0).sort((a, b) => b.bytes - a.bytes);
  let rest = sorted.reduce((sum, holder) => sum + holder.bytes, 0);
  // Bytes the budget counts that no holder here can give back are not the holders' to make up.
  const target = Math.floor(budget.limit * RELIEF_TARGET) - Math.max(0, budget.used - rest);
  for (let cut = 1; cut <= sorted.length; cut += 1) {
    rest -= (sorted[cut - 1] as BudgetHolder).bytes;
    const level = Math.max(0, Math.floor((target - rest) / cut));
    if (level >= (sorted[cut]?.bytes ?? 0)) {
      for (const holder of sorted.slice(0, cut)) holder.shrinkTo(level);
      return cut;
    }
  }
  return 0;
}
