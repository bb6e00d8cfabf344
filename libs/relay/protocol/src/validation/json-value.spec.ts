import Ajv from 'ajv/dist/2020';
import fc from 'fast-check';

import wire12 from '../../schemas/wire-1.2.schema.json';
import { MAX_FRAME_DEPTH } from './frame-reader';
import { isJsonValue } from './json-value';

/**
 * The documents' own definition of "any JSON value", evaluated by a reference validator. JSON has no
 * NaN or Infinity, so numbers are held to being finite (`strictNumbers`), as in the compiled validators.
 */
const reference = new Ajv({ strict: false, strictNumbers: true, validateFormats: false }).compile({ $defs: wire12.$defs, $ref: '#/$defs/sharedSchema0' });

class WithInheritedKey {
  own = 1;
}
(WithInheritedKey.prototype as unknown as Record<string, unknown>)['inherited'] = undefined;

describe('isJsonValue', () => {
  it('accepts exactly what the documents’ JSON-value union accepts, JSON or not', () => {
    const sparse: unknown[] = [];
    sparse[2] = 'x';
    const samples: unknown[] = [
      'text', 0, -1.5, true, null, [], {}, [1, 'a', [null]], { a: { b: [true] } },
      Number.NaN, Number.POSITIVE_INFINITY, undefined, () => 1, Symbol('s'), BigInt(1),
      [undefined], sparse, { a: undefined }, { a: Number.NaN }, new Date(0), new Map([[1, 2]]), new WithInheritedKey(),
      { [Symbol('hidden')]: undefined, visible: 1 },
    ];
    for (const sample of samples) expect([sample, isJsonValue(sample)]).toEqual([sample, reference(sample)]);
  });

  it('agrees with the reference on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withDate: true, withMap: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withTypedArray: true }), (value) => {
        expect(isJsonValue(value)).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
  });
});

describe('isJsonValue on deep values', () => {
  const nested = (depth: number) => {
    let value: unknown = 'leaf';
    for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { a: value };
    return value;
  };

  it(`accepts values nested ${MAX_FRAME_DEPTH} deep and refuses deeper ones without overflowing the stack, even 100,000 deep`, () => {
    expect(isJsonValue(nested(MAX_FRAME_DEPTH))).toBe(true);
    expect(isJsonValue(nested(MAX_FRAME_DEPTH + 1))).toBe(false);
    expect(isJsonValue(nested(100_000))).toBe(false);
  });
});
