import { ByteBudget, relieve, type BudgetHolder } from './byte-budget';

/** A holder of entries of the given sizes, oldest first. */
function holder(budget: ByteBudget, sizes: number[]): BudgetHolder & { entries: number[] } {
  const entries = [...sizes];
  budget.add(sizes.reduce((sum, size) => sum + size, 0));
  return {
    entries,
    get bytes() {
      return entries.reduce((sum, size) => sum + size, 0);
    },
    shrinkTo(bytes: number) {
      while (this.bytes > bytes) budget.add(-(entries.shift() as number));
    },
  };
}

describe('relieve', () => {
  it('does nothing under the limit', () => {
    const budget = new ByteBudget(100);
    const a = holder(budget, [50, 50]);
    expect(relieve(budget, [a])).toBe(0);
    expect(a.entries).toEqual([50, 50]);
  });

  it('cuts the largest holder first and leaves the small ones whole', () => {
    const budget = new ByteBudget(1_000);
    const big = holder(budget, Array.from({ length: 100 }, () => 10));
    const small = holder(budget, [10, 10]);
    expect(budget.over).toBe(true);
    expect(relieve(budget, [big, small])).toBe(1);
    expect(small.entries).toEqual([10, 10]);
    expect(budget.used).toBeLessThanOrEqual(900);
    expect(big.bytes).toBe(880);
  });

  it('cuts several large holders to one level', () => {
    const budget = new ByteBudget(300);
    const holders = [holder(budget, Array(20).fill(10)), holder(budget, Array(15).fill(10)), holder(budget, [10])];
    relieve(budget, holders);
    expect(budget.used).toBeLessThanOrEqual(270);
    expect(holders.map((h) => h.bytes)).toEqual([130, 130, 10]);
  });

  it('ends even when single entries are larger than the level', () => {
    const budget = new ByteBudget(100);
    const holders = [holder(budget, [90]), holder(budget, [90])];
    relieve(budget, holders);
    expect(budget.used).toBeLessThanOrEqual(90);
  });
});
