/**
 * UTF-8 byte lengths of strings without encoding them: a frame over the limit must be refused before it is
 * parsed, and the common case (a frame far below the limit) costs one comparison. Lone surrogates count as
 * U+FFFD (3 bytes), as `TextEncoder` writes them.
 */

/** UTF-8 byte length of `text`; stops counting once it is past `stopAbove` (and returns a value above it). */
export function utf8ByteLength(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else {
        bytes += 3;
      }
    } else bytes += 3;
    if (bytes > stopAbove) return bytes;
  }
  return bytes;
}

/** True if `text` encodes to more than `limit` bytes of UTF-8. */
export function exceedsUtf8Bytes(text: string, limit: number): boolean {
  // Each UTF-16 code unit encodes to at most 3 bytes (a surrogate pair, two units, to 4).
  if (text.length * 3 <= limit) return false;
  if (text.length > limit) return true;
  return utf8ByteLength(text, limit) > limit;
}
