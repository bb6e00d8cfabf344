/**
 * The page's only way to the console backend (apps/console/API.md): same origin, `/api/v1`, the session in an
 * HttpOnly cookie the page never reads, and the CSRF token from `GET /session` (or sign-in) kept in memory only
 * and sent as `X-CSRF-Token` on every state-changing call. Every failure becomes an `ApiError` with the API's
 * stable code and its message for a person; a dead backend or a foreign answer gets a code of the page's own.
 */
export interface ApiIssue {
  code: string;
  path: string;
  message: string;
}

/** Codes the page itself gives when the backend could not answer in the API's own shape. */
export const PAGE_ERROR_CODES = {
  unreachable: 'CONSOLE_UNREACHABLE',
  badAnswer: 'CONSOLE_BAD_ANSWER',
} as const;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: readonly ApiIssue[] = [],
    readonly upstreamCode?: string,
    /** From `Retry-After` (seconds), on 429. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const BASE = '/api/v1';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let csrfToken: string | null = null;
let signedOutHandler: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when any call but the session's own answers 401 CONSOLE_SIGNED_OUT (the app sends the person to sign-in). */
export function onSignedOut(handler: (() => void) | null): void {
  signedOutHandler = handler;
}

export type Query = Record<string, string | number | undefined | null | readonly string[]>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** One path segment, encoded (identifiers, namespaces, references). */
export const segment = (value: string): string => encodeURIComponent(value);

interface CallOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** Session calls handle 401 themselves instead of leaving the page. */
  quietSignedOut?: boolean;
}

export async function apiCall<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const first = await send(method, path, options);
  if (first.status === 403 && STATE_CHANGING.has(method)) {
    // The token in memory may be an older session's (another tab signed in again): fetch it once and retry.
    const error = await readError(first);
    if (error.code !== 'CONSOLE_CSRF_INVALID') throw error;
    await refreshCsrfToken();
    return finish<T>(await send(method, path, options), options);
  }
  return finish<T>(first, options);
}

async function send(method: string, path: string, options: CallOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (STATE_CHANGING.has(method) && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  try {
    return await fetch(`${BASE}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, PAGE_ERROR_CODES.unreachable, 'The console server did not answer. Check your connection and that the console is running, then try again.');
  }
}

async function finish<T>(response: Response, options: CallOptions): Promise<T> {
  if (response.ok) {
    if (response.status === 204) return undefined as T;
    try {
      return (await response.json()) as T;
    } catch {
      throw new ApiError(response.status, PAGE_ERROR_CODES.badAnswer, 'The console server sent an answer this page cannot read. Reload the page; if it persists, check the console logs.');
    }
  }
  const error = await readError(response);
  if (error.status === 401 && error.code === 'CONSOLE_SIGNED_OUT' && !options.quietSignedOut) {
    csrfToken = null;
    signedOutHandler?.();
  }
  throw error;
}

async function readError(response: Response): Promise<ApiError> {
  const retryAfter = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const error = (body as { error?: Partial<{ code: unknown; message: unknown; issues: unknown; upstreamCode: unknown }> } | undefined)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const issues = Array.isArray(error.issues) ? (error.issues as unknown[]).filter(isIssue) : [];
    return new ApiError(response.status, error.code, error.message, issues, typeof error.upstreamCode === 'string' ? error.upstreamCode : undefined, retryAfterSeconds);
  }
  const message =
    response.status >= 500
      ? `The console server could not answer (HTTP ${response.status}). Wait a moment and try again; if it keeps failing, check that the console is running.`
      : `The console server refused the request (HTTP ${response.status}). Reload the page and try again.`;
  return new ApiError(response.status, PAGE_ERROR_CODES.badAnswer, message, [], undefined, retryAfterSeconds);
}

function isIssue(value: unknown): value is ApiIssue {
  if (!value || typeof value !== 'object') return false;
  const issue = value as Record<string, unknown>;
  return typeof issue['code'] === 'string' && typeof issue['path'] === 'string' && typeof issue['message'] === 'string';
}

async function refreshCsrfToken(): Promise<void> {
  const session = await finish<{ csrfToken: string }>(await send('GET', '/session', { quietSignedOut: false }), {});
  csrfToken = session.csrfToken;
}

export const api = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) => apiCall<T>('GET', withQuery(path, query), signal ? { signal } : {}),
  post: <T>(path: string, body?: unknown) => apiCall<T>('POST', path, { body: body ?? {} }),
  delete: <T>(path: string) => apiCall<T>('DELETE', path),
};
