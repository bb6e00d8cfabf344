/**
 * Opaque keyset cursors for search and sync (CARDS.md §5 "Cursor pagination": opaque, stable sort, never
 * an offset): base64url of the last row's sort key, then a check value binding it to its order and to the
 * query it came from. A cursor edited by hand, cut short, or replayed against other filters decodes to
 * null and the route answers 400 CURSOR_INVALID. Forging one gains nothing (the sort keys are public); the
 * check is there so a damaged cursor is refused rather than silently restarting somewhere else.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export type CursorKey = ReadonlyArray<string | number>;

const CHECK_LENGTH = 22;
const SHAPE = new RegExp(`^([A-Za-z0-9_-]{1,1400})\\.([A-Za-z0-9_-]{${CHECK_LENGTH}})$`);
/** Longest cursor accepted in a query string. */
export const MAX_CURSOR_LENGTH = 1400 + 1 + CHECK_LENGTH;

const check = (payload: string, binding: string) => createHash('sha256').update(`trustmesh-registry-cursor\n${binding}\n${payload}`).digest('base64url').slice(0, CHECK_LENGTH);

/** The cursor after a row whose sort key is `key`, in `order`, for the query fingerprinted by `binding`. */
export function encodeCursor(order: string, key: CursorKey, binding: string): string {
  const payload = Buffer.from(JSON.stringify({ o: order, k: key }), 'utf8').toString('base64url');
  return `${payload}.${check(payload, binding)}`;
}

/** The sort key a cursor carries, or null when it is not one this query and order handed out. */
export function decodeCursor(cursor: string, order: string, binding: string): CursorKey | null {
  const match = SHAPE.exec(cursor);
  if (!match?.[1] || !match[2]) return null;
  const expected = Buffer.from(check(match[1], binding));
  const given = Buffer.from(match[2]);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof decoded !== 'object' || decoded === null) return null;
  const { o, k } = decoded as { o?: unknown; k?: unknown };
  if (o !== order || !Array.isArray(k) || !k.every((part) => typeof part === 'string' || (typeof part === 'number' && Number.isFinite(part)))) return null;
  return k as CursorKey;
}
