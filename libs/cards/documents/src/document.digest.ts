/**
 * Content digests as the catalog writes them (`alg:lowerhex`, CARDS.md §2.3 `digest`), computed with
 * WebCrypto so the library runs unchanged in browsers. Asynchronous because `crypto.subtle` is; the
 * caller hashes the exact bytes it fetched (§3.7), never a re-serialisation.
 */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  // A copy into a plain ArrayBuffer: WebCrypto refuses views over a SharedArrayBuffer.
  const hash = await globalThis.crypto.subtle.digest('SHA-256', new Uint8Array(bytes));
  return `sha-256:${Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
