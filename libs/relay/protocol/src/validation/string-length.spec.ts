import fc from 'fast-check';
import ajvLength from 'ajv/dist/runtime/ucs2length';

import { ucs2length } from './string-length';

describe('ucs2length', () => {
  it('counts exactly as Ajv does, for any string of code units (pairs, lone surrogates, ASCII, BMP)', () => {
    const unit = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), (units) => {
        const text = String.fromCharCode(...units);
        expect(ucs2length(text)).toBe(ajvLength(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('counts a surrogate pair as one and a lone surrogate as one', () => {
    expect(ucs2length('a\ud83d\ude00b')).toBe(3);
    expect(ucs2length('a\ud83db')).toBe(3);
    expect(ucs2length('\ude00\ud83d')).toBe(2);
    expect(ucs2length('')).toBe(0);
  });
});
