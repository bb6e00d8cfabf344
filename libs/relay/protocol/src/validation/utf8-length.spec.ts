import { exceedsUtf8Bytes, utf8ByteLength } from './utf8-length';

const encoded = (text: string) => new TextEncoder().encode(text).byteLength;

describe('UTF-8 size without encoding', () => {
  it('counts 1-, 2-, 3- and 4-byte characters and lone surrogates as TextEncoder writes them', () => {
    for (const text of ['ascii', 'é', '中文', '😀', 'a\ud800b', '\udc00', 'mixed é中😀\ud83d']) expect(utf8ByteLength(text)).toBe(encoded(text));
  });

  // The shortcut answers "fits" from the UTF-16 length alone when every unit could be 3 bytes and still
  // fit; a shortcut that assumed 2 bytes per unit would let CJK text through at 1.5× the limit.
  it.each([
    ['CJK (3 bytes per unit)', '中'],
    ['emoji (4 bytes per surrogate pair)', '😀'],
    ['lone surrogates (3 bytes each, as U+FFFD)', '\ud800'],
  ])('%s: refuses text one character over the limit and accepts text at it', (_name, char) => {
    for (const limit of [300, 3_000, 1_048_576]) {
      const fits = char.repeat(Math.floor(limit / encoded(char)));
      const over = fits + char;
      expect(encoded(fits)).toBeLessThanOrEqual(limit);
      expect(exceedsUtf8Bytes(fits, limit)).toBe(false);
      expect(exceedsUtf8Bytes(over, limit)).toBe(true);
      // Padded with ASCII to exactly the limit, then one byte over.
      const exact = fits + 'a'.repeat(limit - encoded(fits));
      expect(exceedsUtf8Bytes(exact, limit)).toBe(false);
      expect(exceedsUtf8Bytes(`${exact}a`, limit)).toBe(true);
    }
  });
});
