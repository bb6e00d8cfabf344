/**
 * The list conventions of API.md: `?limit=` 1-100 (default 25) and `?cursor=` (opaque, from `nextCursor`),
 * checked before any upstream call. A cursor is base64url of a small JSON object the service wrote; this
 * file bounds its size and shape, the service checks its fields.
 */
import { refused, type ConsoleResult } from '../console-result';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
const MAX_CURSOR = 512;

export interface ListQuery {
  limit: number;
  cursor: string | null;
}

export function readListQuery(query: { limit?: string | undefined; cursor?: string | undefined }): ConsoleResult<ListQuery> {
  let limit = DEFAULT_LIMIT;
  if (query.limit !== undefined) {
    if (!/^\d{1,3}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > MAX_LIMIT) {
      return refused(422, 'CONSOLE_INVALID_INPUT', `limit must be a whole number from 1 to ${MAX_LIMIT}`, { issues: [{ code: 'CONSOLE_LIMIT_INVALID', path: '?limit', message: `Use 1 to ${MAX_LIMIT}` }] });
    }
    limit = Number(query.limit);
  }
  let cursor: string | null = null;
  if (query.cursor !== undefined && query.cursor !== '') {
    if (query.cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(query.cursor)) return badCursor();
    cursor = query.cursor;
  }
  return { ok: true, status: 200, value: { limit, cursor } };
}

/**
 * The query parameters `names` as single strings: Express hands a repeated parameter (`?q=a&q=b`) over as an
 * array, which no route takes; it is refused at its `?name` rather than guessed at. Others are ignored.
 */
export function singleQueryValues<K extends string>(query: Record<string, unknown>, names: readonly K[]): ConsoleResult<Partial<Record<K, string>>> {
  const values: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      return refused(422, 'CONSOLE_INVALID_INPUT', `${name} is given more than once; give it once`, { issues: [{ code: 'CONSOLE_PARAMETER_REPEATED', path: `?${name}`, message: `Give ${name} once` }] });
    }
    values[name] = value;
  }
  return { ok: true, status: 200, value: values };
}

export const badCursor = <T>(): ConsoleResult<T> =>
  refused(422, 'CONSOLE_INVALID_INPUT', 'cursor is not a nextCursor this list gave; start again without it', { issues: [{ code: 'CONSOLE_CURSOR_INVALID', path: '?cursor', message: 'Use the nextCursor of the previous page' }] });

export const encodeCursor = (value: Record<string, string>): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The cursor's object when it decodes to one with exactly these string fields, else null. */
export function decodeCursor<K extends string>(cursor: string, fields: readonly K[]): Record<K, string> | null {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    const entries = Object.entries(parsed);
    if (entries.length !== fields.length || !fields.every((field) => typeof (parsed as Record<string, unknown>)[field] === 'string')) return null;
    return parsed as Record<K, string>;
  } catch {
    return null;
  }
}
