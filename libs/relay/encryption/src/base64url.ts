/**
 * Base64url without padding (RFC 4648 §5), the text form of keys, nonces and ciphertexts in this profile.
 * Written here rather than borrowed from `Buffer` or `atob` so the library runs unchanged in browsers and
 * Node, and so decoding is strict: anything but canonical unpadded base64url is refused.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUES: Readonly<Record<string, number>> = Object.fromEntries([...ALPHABET].map((char, index) => [char, index]));

export function encodeBase64Url(bytes: Uint8Array): string {
  let out = '';
  for (let index = 0; index < bytes.length; index += 3) {
    const available = Math.min(3, bytes.length - index);
    const chunk = ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    // 3 bytes give 4 characters, 2 give 3, 1 gives 2 (no padding).
    for (let char = 0; char <= available; char += 1) out += ALPHABET.charAt((chunk >> (18 - 6 * char)) & 63);
  }
  return out;
}

/** Decodes unpadded base64url; `undefined` for any other text (padding, `+`/`/`, stray bits, bad length). */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let written = 0;
  for (const char of text) {
    const value = VALUES[char];
    if (value === undefined) return undefined;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = (buffer >> bits) & 0xff;
    }
  }
  // Leftover bits must be zero, so every byte string has exactly one accepted encoding.
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}
