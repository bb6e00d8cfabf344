/**
 * UUID version 7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then random bits. Ids sort by creation
 * time, which keeps index inserts local. Within one millisecond, the 12-bit `rand_a` field counts up
 * (method 1 of §6.2), so ids made by one process are strictly increasing.
 */
let lastMillis = -1;
let counter = 0;

export function uuidv7(now: number = Date.now()): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  const [, , , , , , randA = 0, randB = 0, variant = 0] = bytes;
  if (now <= lastMillis) {
    counter += 1;
    if (counter > 0xfff) {
      // The counter is spent: borrow the next millisecond rather than repeat or go back.
      lastMillis += 1;
      counter = 0;
    }
  } else {
    lastMillis = now;
    counter = ((randA & 0x07) << 8) | randB; // a random start below 2^11 leaves room to count up
  }
  const millis = lastMillis;
  bytes[0] = Math.floor(millis / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(millis / 2 ** 32) & 0xff;
  bytes[2] = (millis >>> 24) & 0xff;
  bytes[3] = (millis >>> 16) & 0xff;
  bytes[4] = (millis >>> 8) & 0xff;
  bytes[5] = millis & 0xff;
  bytes[6] = 0x70 | ((counter >>> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (variant & 0x3f);
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The Unix milliseconds a UUIDv7 carries. */
export function uuidv7Millis(id: string): number {
  return Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}
