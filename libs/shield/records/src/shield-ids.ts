/**
 * Ids of the Shield's records and items (§2): UUIDs of the pattern the schemas state (version 1-8,
 * variant 8/9/a/b, or the nil and all-f UUIDs). New ids are lowercase v4, from the platform's
 * cryptographic random source (`crypto.getRandomValues`, in browsers and Node alike).
 */
export const SHIELD_ID_PATTERN =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;

/** Makes a new id; commands take one so that tests are deterministic. */
export type ShieldIdGenerator = () => string;

export function isShieldId(value: unknown): value is string {
  return typeof value === 'string' && SHIELD_ID_PATTERN.test(value);
}

/** Lowercase random (version 4) UUIDs. */
export function createRandomShieldId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
