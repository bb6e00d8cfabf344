import { exceedsJsonDepth } from './value-depth';

describe('exceedsJsonDepth', () => {
  const nested = (depth: number) => {
    let value: unknown = 'leaf';
    for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [1, value] : { a: value, b: null };
    return value;
  };

  it('measures the deepest container, the top level being depth 1', () => {
    expect(exceedsJsonDepth('text', 0)).toBe(false);
    expect(exceedsJsonDepth({}, 0)).toBe(true);
    expect(exceedsJsonDepth({ a: [1, { b: [] }], c: {} }, 4)).toBe(false);
    expect(exceedsJsonDepth({ a: [1, { b: [] }], c: {} }, 3)).toBe(true);
    expect(exceedsJsonDepth(nested(64), 64)).toBe(false);
    expect(exceedsJsonDepth(nested(65), 64)).toBe(true);
  });

  it('answers for 100,000 levels and for cyclic values without overflowing the stack or looping', () => {
    expect(exceedsJsonDepth(nested(100_000), 128)).toBe(true);
    expect(exceedsJsonDepth(nested(100_000), 100_000)).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = [cyclic];
    expect(exceedsJsonDepth(cyclic, 1_000)).toBe(true);
  });
});
