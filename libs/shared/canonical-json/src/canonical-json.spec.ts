import fc from 'fast-check';

import { canonicalJson } from './canonical-json';

describe('canonical JSON: member order (RFC 8785 §3.2.3)', () => {
  it('sorts keys recursively by UTF-16 code unit, keeps array order, has no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [3, { d: 1, c: 2 }], A: null })).toBe('{"A":null,"a":[3,{"c":2,"d":1}],"b":1}');
    // U+E000 sorts after U+1F600's high surrogate (U+D83D) by code unit, though its code point is smaller.
    expect(canonicalJson({ '\ue000': 1, '😀': 2 })).toBe('{"😀":2,"\ue000":1}');
  });

  it('orders control characters, digits, Latin-1, BMP symbols, astral characters and presentation forms by code unit', () => {
    const value = { '\ufb33': 7, '€': 5, '\r': 1, '😀': 6, ö: 4, '1': 2, '\u0080': 3 };
    expect(canonicalJson(value)).toBe('{"\\r":1,"1":2,"\u0080":3,"ö":4,"€":5,"😀":6,"\ufb33":7}');
  });

  it('does not depend on the order keys were written in', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: 2 })), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
      }),
      { numRuns: 200 },
    );
  });
});

describe('canonical JSON: numbers (RFC 8785 §3.2.2.3, ECMAScript serialisation)', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [-1.5, '-1.5'],
    [1e21, '1e+21'],
    [1e20, '100000000000000000000'],
    [5e-324, '5e-324'],
    [-5e-324, '-5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [9007199254740992, '9007199254740992'],
    [0.000001, '0.000001'],
    [1e-7, '1e-7'],
    [0.1 + 0.2, '0.30000000000000004'],
    [123456789012345680000, '123456789012345680000'],
  ])('writes %p as %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
    expect(canonicalJson([value])).toBe(`[${text}]`);
  });

  it.each([NaN, Infinity, -Infinity])('refuses %p, which JSON cannot hold', (value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
    expect(() => canonicalJson({ nested: [value] })).toThrow(TypeError);
  });
});

describe('canonical JSON: strings and literals (RFC 8785 §3.2.2.2)', () => {
  it('escapes strings exactly as JSON does', () => {
    expect(canonicalJson({ text: 'line\n"quoted"\u0001' })).toBe('{"text":"line\\n\\"quoted\\"\\u0001"}');
  });

  it('uses the short escapes, lowercase \\u00xx for other controls, and leaves /, U+2028 and non-ASCII as they are', () => {
    expect(canonicalJson('\b\t\n\f\r\u001f\\/\u2028é')).toBe('"\\b\\t\\n\\f\\r\\u001f\\\\/\u2028é"');
  });

  it('writes the literals', () => {
    expect(canonicalJson([true, false, null])).toBe('[true,false,null]');
  });

  it('leaves out members whose value is undefined and refuses values JSON has no form for', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(() => canonicalJson([undefined])).toThrow(TypeError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(TypeError);
  });
});

describe('canonical JSON: shape of the input', () => {
  it('writes values nested 100,000 deep without overflowing the stack', () => {
    let value: unknown = { b: 1, a: 2 };
    for (let level = 0; level < 100_000; level += 1) value = level % 2 === 0 ? [value, level] : { z: value, y: null };
    const text = canonicalJson(value);
    expect(text.startsWith('{"y":null,"z":[{"y":null,"z":[')).toBe(true);
    expect(text.includes('{"a":2,"b":1}')).toBe(true);
    expect(text.split('[').length - 1).toBe(50_000);
  });

  it('refuses cyclic values as JSON.stringify does', () => {
    const cyclic: Record<string, unknown> = { a: [] };
    (cyclic['a'] as unknown[]).push(cyclic);
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });

  it('writes a value shared twice (not a cycle) both times', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });

  it('parses back to the same value and is idempotent', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = canonicalJson(value);
        const parsed: unknown = JSON.parse(text);
        expect(parsed).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(parsed)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
