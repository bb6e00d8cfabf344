// Conversions between JavaScript Dates and google.protobuf.Timestamp. The generated types keep Timestamp
// as `{ seconds, nanos }` (useDate=false, see generated/README.md) because that is what proto-loader hands
// NestJS; these two functions are the one place that converts, so no caller hand-rolls the arithmetic.
import type { Timestamp } from './generated/nestjs/google/protobuf/timestamp';

/** The Timestamp for a Date, at the Date's millisecond precision. Throws on an invalid Date. */
export function timestampFromDate(date: Date): Timestamp {
  const millis = date.getTime();
  if (Number.isNaN(millis)) {
    throw new RangeError('timestampFromDate: invalid Date');
  }
  // floor, not trunc: before 1970 the seconds go down and nanos stay non-negative, as Timestamp requires.
  const seconds = Math.floor(millis / 1000);
  return { seconds, nanos: (millis - seconds * 1000) * 1_000_000 };
}

/**
 * The Date for a Timestamp; nanoseconds below a millisecond are dropped. `toISOString()` of the result is
 * RFC 3339 with the `Z` offset, the form the Control 1.0 session descriptor's `expiresAt` needs.
 */
export function dateFromTimestamp(timestamp: Timestamp): Date {
  return new Date(timestamp.seconds * 1000 + Math.floor(timestamp.nanos / 1_000_000));
}
