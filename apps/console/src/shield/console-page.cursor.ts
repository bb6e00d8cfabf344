/**
 * Keyset cursors of the console's Shield lists: base64url of `{at, id}`, the sort key of a page's last row, so a
 * page never repeats or skips a row when cases change between pages. `limit` and `cursor` arrive as the HTTP
 * edge read them (API.md: `?limit=` 1-100, default 25; `?cursor=` opaque, bounded).
 */
export interface PageQuery {
  limit: number;
  cursor: string | null;
}

const MAX_CURSOR = 512;

export const encodePageCursor = (key: { at: string; id: string }): string => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

/** The cursor's key, or null when it is not one this list wrote. */
export function decodePageCursor(cursor: string): { at: string; id: string } | null {
  if (cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    const { at, id, ...rest } = parsed as Record<string, unknown>;
    return typeof at === 'string' && typeof id === 'string' && Object.keys(rest).length === 0 ? { at, id } : null;
  } catch {
    return null;
  }
}
