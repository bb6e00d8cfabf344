import fc from 'fast-check';

import { exampleCase, sequentialIds, T1 } from '../../test/shield-record.examples';
import type { Fact, FactInput } from '../shield.types';
import { identifyConsultItems, mergeConsultInput, mergeItems } from './shield-case.merge';

const ID_POOL = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444'];

interface Item {
  id: string;
  version: number;
}

describe('the §4 merge, as properties', () => {
  const items = fc.array(fc.record({ id: fc.constantFrom(...ID_POOL), version: fc.nat() }), { maxLength: 8 });
  const existingItems = fc.uniqueArray(fc.record({ id: fc.constantFrom(...ID_POOL), version: fc.nat() }), { selector: (item) => item.id, maxLength: 4 });

  it('keeps every existing item in place, replaced by the last incoming item with its id, and appends the others in first-seen order', () => {
    fc.assert(
      fc.property(existingItems, items, (existing: Item[], incoming: Item[]) => {
        const merged = mergeItems(existing, incoming, (item) => item.id);
        const lastById = new Map(incoming.map((item) => [item.id, item]));
        // Existing items keep their positions; each is the latest version the input carries, if any.
        existing.forEach((item, index) => expect(merged[index]).toEqual(lastById.get(item.id) ?? item));
        const known = new Set(existing.map((item) => item.id));
        const appended = [...new Set(incoming.map((item) => item.id))].filter((id) => !known.has(id));
        expect(merged.slice(existing.length).map((item) => item.id)).toEqual(appended);
        expect(merged.slice(existing.length)).toEqual(appended.map((id) => lastById.get(id)));
        // Nothing is deleted, nothing is duplicated.
        expect(new Set(merged.map((item) => item.id)).size).toBe(merged.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('identifying consult items', () => {
  it('gives every id-less item a new id (so it always appends) and keeps the later of two items with one id', () => {
    const fact = (statement: string, factId?: string): FactInput => ({ ...(factId && { factId }), statement, source: 'owner', status: 'asserted', evidenceReferences: [] });
    const identified = identifyConsultItems({ facts: [fact('a'), fact('b', ID_POOL[0]), fact('c'), fact('d', ID_POOL[0])], evidence: [], policies: [] }, sequentialIds(7));
    expect(identified.facts.map((item: Fact) => [item.factId, item.statement])).toEqual([
      ['00000000-0000-4000-8000-000000000007', 'a'],
      [ID_POOL[0], 'd'],
      ['00000000-0000-4000-8000-000000000008', 'c'],
    ]);
  });

  it('merges into the example case without touching it (the merge is pure)', () => {
    const before = JSON.stringify(exampleCase);
    const identified = identifyConsultItems({ facts: [{ statement: 'x', source: 'owner', status: 'asserted', evidenceReferences: [] }], evidence: [], policies: [] }, sequentialIds(50));
    const merged = mergeConsultInput(exampleCase, identified, 'Hold the payment', T1);
    expect(merged.ok && merged.value.facts).toHaveLength(2);
    expect(merged.ok && merged.value.updatedAt).toBe(T1);
    expect(JSON.stringify(exampleCase)).toBe(before);
  });
});
