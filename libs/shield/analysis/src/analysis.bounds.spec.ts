import { clip, clipList } from './analysis.bounds';

describe('analysis bounds', () => {
  it('cuts at a word boundary with an ellipsis and never exceeds the bound', () => {
    const text = 'word '.repeat(300);
    const cut = clip(text, 500);
    expect(cut.length).toBeLessThanOrEqual(500);
    expect(cut.endsWith('word…')).toBe(true);
  });

  it('trims and collapses whitespace, and never returns an empty string', () => {
    expect(clip('  a \n b  ', 10)).toBe('a b');
    expect(clip('   ', 10)).toBe('-');
    // §2 trims before length checks: Unicode white space too, not only ASCII and U+00A0.
    expect(clip('\u3000', 10)).toBe('-');
    expect(clip('ok\u2028', 10)).toBe('ok');
    expect(clip('\u2003ok', 10)).toBe('ok');
  });

  it('caps lists, drops empty and duplicate entries', () => {
    expect(clipList(['a', ' ', 'a', 'b'], 12, 10)).toEqual(['a', 'b']);
    expect(clipList(Array.from({ length: 20 }, (_, i) => `item ${i}`), 12, 10)).toHaveLength(12);
  });
});
