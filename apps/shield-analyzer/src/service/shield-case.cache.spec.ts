import type { ShieldCase, ShieldConsultation } from '@trustmesh/shield-records';

import { ShieldCaseCache, type FoldedCase } from './shield-case.cache';

/** A folded case for the cache: only its identity and consultation count matter here. */
function folded(caseId: string, consultations = 0): FoldedCase {
  return {
    state: { caseId } as ShieldCase,
    version: 1 + consultations,
    consultations: Array.from({ length: consultations }, (_, index) => ({ consultationId: `${caseId}-${index}` }) as ShieldConsultation),
    outcomes: [],
    owner: 'acme',
  };
}

const kept = (cache: ShieldCaseCache, ids: string[]) => ids.filter((id) => cache.get(id) !== undefined);

describe('ShieldCaseCache', () => {
  it('keeps every case of a working set larger than a few hundred while the budget allows', () => {
    const cache = new ShieldCaseCache({ maxChars: 1_000_000, maxConsultations: 20 });
    const ids = Array.from({ length: 600 }, (_, index) => `case-${index}`);
    for (const id of ids) cache.set(id, folded(id), 1_000);
    // Consulted in the order opened: a cache bounded by a smaller count evicted each case just before its turn.
    expect(kept(cache, ids)).toEqual(ids);
    expect(cache.size).toEqual({ cases: 600, chars: 600_000 });
  });

  it('drops the least recently used cases first once the budget is exceeded', () => {
    const cache = new ShieldCaseCache({ maxChars: 3_000, maxConsultations: 20 });
    cache.set('a', folded('a'), 1_000);
    cache.set('b', folded('b'), 1_000);
    cache.set('c', folded('c'), 1_000);
    expect(cache.get('a')?.state.caseId).toBe('a');
    cache.set('d', folded('d'), 1_500);
    // b (least recently used) and then c go; a was read after them.
    expect(kept(cache, ['a', 'b', 'c', 'd'])).toEqual(['a', 'd']);
    expect(cache.size).toEqual({ cases: 2, chars: 2_500 });
  });

  it('replaces a case kept before, counting only its new size', () => {
    const cache = new ShieldCaseCache({ maxChars: 3_000, maxConsultations: 20 });
    cache.set('a', folded('a'), 1_000);
    cache.set('a', folded('a', 1), 2_000);
    expect(cache.get('a')).toMatchObject({ version: 2, chars: 2_000 });
    expect(cache.size).toEqual({ cases: 1, chars: 2_000 });
  });

  it('never keeps a case larger than the budget or with too many consultations, and forgets the one kept before', () => {
    const cache = new ShieldCaseCache({ maxChars: 3_000, maxConsultations: 2 });
    cache.set('big', folded('big'), 1_000);
    cache.set('big', folded('big', 1), 3_001);
    cache.set('long', folded('long'), 100);
    cache.set('long', folded('long', 3), 100);
    expect(kept(cache, ['big', 'long'])).toEqual([]);
    expect(cache.size).toEqual({ cases: 0, chars: 0 });
  });

  it('forgets a case on delete (another writer moved it)', () => {
    const cache = new ShieldCaseCache({ maxChars: 3_000, maxConsultations: 20 });
    cache.set('a', folded('a'), 1_000);
    cache.delete('a');
    cache.delete('missing');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toEqual({ cases: 0, chars: 0 });
  });
});
