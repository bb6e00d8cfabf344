import fc from 'fast-check';

import { compilePattern, withoutCaptures } from './pattern-engine';

const UUID = '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000)$';
const DIGITS = '^\\d+$';

/** UUIDs, near-UUIDs (one character changed), and strings of any kind, drawn from a small pool so they repeat. */
const candidates = fc.oneof(
  fc.uuid(),
  fc.tuple(fc.uuid(), fc.nat(35), fc.constantFrom('g', 'G', '-', '0', 'a', '', '\u00e9', '\ud83d\ude00', '\n')).map(([id, at, char]) => id.slice(0, at) + char + id.slice(at + 1)),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.stringMatching(/^\d{1,70}$/),
);

describe('compilePattern', () => {
  it('answers exactly as the schema pattern does, over any sequence of repeated and new inputs', () => {
    fc.assert(
      fc.property(fc.array(candidates, { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { maxLength: 60 }), (pool, picks) => {
        for (const source of [UUID, DIGITS]) {
          const matcher = compilePattern(source, 'u');
          const reference = new RegExp(source, 'u');
          for (const pick of [...picks, ...picks]) {
            const input = pool[pick % pool.length]!;
            expect(matcher.test(input)).toBe(reference.test(input));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never accepts from memory what the pattern refuses, nor remembers a refusal as an acceptance', () => {
    const matcher = compilePattern(UUID, 'u');
    const valid = '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';
    expect(matcher.test(valid)).toBe(true);
    expect(matcher.test(valid)).toBe(true);
    expect(matcher.test(valid.toUpperCase())).toBe(true);
    expect(matcher.test(`${valid}\n`)).toBe(false);
    expect(matcher.test(valid.replace('4f7a', '9f7a'))).toBe(false);
    expect(matcher.test(valid.replace('4f7a', '9f7a'))).toBe(false);
    expect(matcher.test('')).toBe(false);
    // More distinct accepted strings than it remembers, then each again: every answer still true.
    const ids = Array.from({ length: 20 }, (_, i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`);
    for (const id of [...ids, ...ids]) expect(matcher.test(id)).toBe(true);
  });

  it('tells patterns apart by their expression, as Ajv shares compiled patterns by that text', () => {
    expect(compilePattern(UUID, 'u').toString()).toBe(new RegExp(withoutCaptures(UUID), 'u').toString());
    expect(compilePattern(UUID, 'u').toString()).not.toBe(compilePattern(DIGITS, 'u').toString());
  });

  it('makes capturing groups non-capturing and leaves escapes and classes alone', () => {
    expect(withoutCaptures('^(a|b)\\(c\\)[(]$')).toBe('^(?:a|b)\\(c\\)[(]$');
    expect(withoutCaptures('(?:x)(?=y)')).toBe('(?:x)(?=y)');
  });
});
