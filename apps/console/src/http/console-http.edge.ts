/**
 * The HTTP edge every `/api/v1` route shares (API.md "Conventions", "Authentication and CSRF"):
 *
 * - `Cache-Control: no-store` on every answer;
 * - the Origin rule on every state-changing request, sign-in included (403 CONSOLE_ORIGIN_REFUSED);
 * - the session from the `tm_console_session` cookie (401 CONSOLE_SIGNED_OUT), handed to the service as a
 *   `ConsoleAccount`, never taken from the body;
 * - the CSRF token on every state-changing request but sign-in (403 CONSOLE_CSRF_INVALID, constant time);
 * - bodies read bounded while reading (64 KiB unless the route says more, 413 CONSOLE_BODY_TOO_LARGE), declared JSON (415) and parsed
 *   strictly (duplicate keys, lone surrogates, nesting over 64: 400 CONSOLE_BODY_INVALID);
 * - a service's `ConsoleResult` turned into the answer, errors as `{"error": {code, message, ...}}`;
 * - a database outage as 503 CONSOLE_UNAVAILABLE, anything else as 500 CONSOLE_INTERNAL, the error's name
 *   only in the log; one log line per request (method, route template, status, duration: never a body,
 *   a cookie or a token).
 *
 * Refusals never echo input.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { BodyTooLargeError, hasJsonContentType, readBoundedBody } from '@trustmesh/platform-http-body';
import { isDatabaseUnavailable } from '@trustmesh/platform-database';
import type { Logger } from '@trustmesh/platform-logging';
import { parseStrictJson } from '@trustmesh/shared-strict-json';

import type { ConsoleAccount, ConsoleError, ConsoleResult } from '../console-result';
import { originAllowed, STATE_CHANGING } from '../session/request-origin';
import { constantTimeEqual, sessionIdFromCookie, type ConsoleSessions, type LiveSession } from '../session/console-sessions';

export const CONSOLE_HTTP_EDGE = Symbol.for('trustmesh.console.HttpEdge');

export const MAX_BODY_BYTES = 64 * 1024;
/** API.md: nesting over 64 is refused. */
const MAX_JSON_DEPTH = 64;

export interface ConsoleHttpEdgeOptions {
  sessions: ConsoleSessions;
  logger: Logger;
  /** The console's origin (known once the listener is bound when the port is 0). */
  publicOrigin: () => string;
  onAnswered?: (method: string, route: string, status: number) => void;
}

export interface ApiRoute {
  /** Route template for logs and metrics (`/api/v1/workspaces/:workspaceId`). */
  template: string;
  /** `required`: a JSON body; `optional`: a JSON body or none; `none`: any body is drained unread. */
  body: 'required' | 'optional' | 'none';
  /** Largest body in bytes (default 64 KiB; API.md allows 256 KiB for `POST /registry/cards`). */
  maxBodyBytes?: number;
}

export interface Admitted {
  body: unknown;
  /** The `tm_console_session` cookie's value, when one was sent. */
  sessionId: string | undefined;
}

class BodyRefused extends Error {
  constructor(
    readonly status: number,
    readonly error: ConsoleError,
  ) {
    super(error.code);
  }
}

export class ConsoleHttpEdge {
  constructor(readonly options: ConsoleHttpEdgeOptions) {}

  /** A route that needs a live session (and, when state-changing, the CSRF token). */
  async signedIn<T>(request: IncomingMessage, response: ServerResponse, route: ApiRoute, work: (account: ConsoleAccount, body: unknown) => Promise<ConsoleResult<T>>): Promise<void> {
    await this.guarded(request, response, route.template, async () => {
      if (!this.originChecked(request, response)) return;
      const sessionId = sessionIdFromCookie(request.headers.cookie);
      const session = await this.options.sessions.resolve(sessionId);
      if (!session) {
        request.resume();
        return fail(response, 401, { code: 'CONSOLE_SIGNED_OUT', message: 'Sign in to continue' });
      }
      if (!this.csrfChecked(request, response, session)) return;
      const body = await this.readBody(request, route);
      answer(response, await work(session.account, body));
    });
  }

  /** A route open without a session (sign-in, GET /session): the Origin rule and the body only. */
  async open(request: IncomingMessage, response: ServerResponse, route: ApiRoute, work: (admitted: Admitted) => Promise<void>): Promise<void> {
    await this.guarded(request, response, route.template, async () => {
      if (!this.originChecked(request, response)) return;
      const body = await this.readBody(request, route);
      await work({ body, sessionId: sessionIdFromCookie(request.headers.cookie) });
    });
  }

  /** Answers 404 CONSOLE_NOT_FOUND for an `/api` path no route has (without repeating the path). */
  async unknownRoute(request: IncomingMessage, response: ServerResponse): Promise<void> {
    await this.guarded(request, response, '/api/*', async () => {
      request.resume();
      fail(response, 404, { code: 'CONSOLE_NOT_FOUND', message: 'No such API route; see apps/console/API.md' });
    });
  }

  private originChecked(request: IncomingMessage, response: ServerResponse): boolean {
    const origin = request.headers.origin;
    if (originAllowed(request.method ?? '', typeof origin === 'string' ? origin : undefined, this.options.publicOrigin())) return true;
    request.resume();
    fail(response, 403, { code: 'CONSOLE_ORIGIN_REFUSED', message: "This request came from another site's page; use the console's own page" });
    return false;
  }

  private csrfChecked(request: IncomingMessage, response: ServerResponse, session: LiveSession): boolean {
    if (!STATE_CHANGING.has(request.method ?? '')) return true;
    const header = request.headers['x-csrf-token'];
    const given = typeof header === 'string' ? header.slice(0, 256) : '';
    if (constantTimeEqual(given, session.csrfToken)) return true;
    request.resume();
    fail(response, 403, { code: 'CONSOLE_CSRF_INVALID', message: 'The page is out of date; reload it and try again' });
    return false;
  }

  private async readBody(request: IncomingMessage, route: ApiRoute): Promise<unknown> {
    const mode = route.body;
    const maxBytes = route.maxBodyBytes ?? MAX_BODY_BYTES;
    const declaredEmpty = request.headers['content-length'] === '0' || (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined);
    if (mode === 'none' || (mode === 'optional' && declaredEmpty)) {
      request.resume();
      return undefined;
    }
    if (!hasJsonContentType(request)) {
      request.resume();
      throw new BodyRefused(415, { code: 'CONSOLE_CONTENT_TYPE_UNSUPPORTED', message: 'Send the body as Content-Type: application/json' });
    }
    let bytes: Buffer;
    try {
      bytes = await readBoundedBody(request, maxBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new BodyRefused(413, { code: 'CONSOLE_BODY_TOO_LARGE', message: `The body is over ${Math.floor(maxBytes / 1024)} KiB; send less` });
      throw error;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new BodyRefused(400, { code: 'CONSOLE_BODY_INVALID', message: 'The body is not UTF-8 JSON', issues: [{ code: 'JSON_INVALID_UTF8', path: '', message: 'The body is not valid UTF-8' }] });
    }
    const parsed = parseStrictJson(text, { loneSurrogates: 'refuse', maxDepth: MAX_JSON_DEPTH });
    if (!parsed.ok) {
      throw new BodyRefused(400, {
        code: 'CONSOLE_BODY_INVALID',
        message: 'The body is not one strict JSON value (no duplicate keys, no lone surrogates, at most 64 levels deep)',
        issues: [{ code: parsed.issue.code, path: '', message: 'Fix the JSON and send it again' }],
      });
    }
    return parsed.value;
  }

  /** Runs `handle`; maps a refused body, a database outage and any other failure to their answers; logs and counts. */
  private async guarded(request: IncomingMessage, response: ServerResponse, template: string, handle: () => Promise<void>): Promise<void> {
    const started = Date.now();
    response.setHeader('Cache-Control', 'no-store');
    try {
      await handle();
    } catch (error) {
      if (error instanceof BodyRefused) {
        if (error.status === 413) response.setHeader('Connection', 'close');
        if (!response.headersSent) fail(response, error.status, error.error);
      } else {
        const unavailable = isDatabaseUnavailable(error);
        this.options.logger.log(unavailable ? 'warn' : 'error', 'console request failed', { route: template, errorName: error instanceof Error ? error.name : 'unknown', unavailable });
        if (!response.headersSent && unavailable) {
          response.setHeader('Retry-After', '5');
          fail(response, 503, { code: 'CONSOLE_UNAVAILABLE', message: 'The console cannot reach its database right now; try again in a moment' });
        } else if (!response.headersSent) fail(response, 500, { code: 'CONSOLE_INTERNAL', message: 'Something went wrong in the console; try again, and tell the operator if it keeps failing' });
      }
    }
    const method = request.method ?? '';
    this.options.onAnswered?.(method, template, response.statusCode);
    this.options.logger.log('info', 'console request', { method, route: template, status: response.statusCode, durationMs: Date.now() - started });
  }
}

export function answer<T>(response: ServerResponse, result: ConsoleResult<T>): void {
  if (result.ok) {
    if (result.status === 204) {
      response.writeHead(204);
      response.end();
    } else send(response, result.status, result.value);
  } else fail(response, result.status, result.error);
}

export function fail(response: ServerResponse, status: number, error: ConsoleError): void {
  send(response, status, { error });
}

export function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}
