/**
 * The HTTP edge every Shield route shares (REST `/v0.1` and MCP `/mcp`): bearer authentication, bounded
 * JSON bodies (413 beyond SHIELD_MAX_BODY_BYTES, counted while reading; never a framework body parser),
 * answers as `{ error, issues: [{ code, path, message }] }` that never echo input, and one request log line
 * (method, route template, status, duration: never a body, §12) plus the operator metrics.
 *
 * Status codes: 400 validation and closed cases (§5), 401 no or unknown credential, 403 a credential that
 * may not do this, 404 an unknown case or another account's, 409 a concurrent change or the agent-token
 * bound, 413 an oversized body, 415 a body that is not declared `application/json`, 503 the database is
 * unreachable (retry later).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { MAX_ON_BEHALF_OF, ON_BEHALF_OF_HEADER } from '@trustmesh/platform-credentials';
import { BodyTooLargeError, hasJsonContentType, readBoundedBody } from '@trustmesh/platform-http-body';
import type { Logger } from '@trustmesh/platform-logging';
import { parseStrictJson, type StrictJsonIssue } from '@trustmesh/shared-strict-json';

import type { ShieldCaller } from '../service/shield-callers';
import type { ShieldCaseService } from '../service/shield-case.service';
import { isUnavailable, notJsonIssue, UNAVAILABLE, type ServiceResult, type ShieldFailureKind } from '../service/shield-service.result';

const STATUS: Record<ShieldFailureKind, number> = { invalid: 400, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409 };

/** DI token of the `ShieldHttpEdge`. */
export const SHIELD_HTTP_EDGE = Symbol.for('trustmesh.shield-analyzer.HttpEdge');

class BodyNotJson extends Error {
  constructor(readonly issue?: StrictJsonIssue) {
    super('not JSON');
  }
}

export interface ShieldHttpEdgeOptions {
  service: ShieldCaseService;
  logger: Logger;
  maxBodyBytes: number;
  /** Told of every answered request (operator metrics). */
  onAnswered?: (method: string, route: string, status: number) => void;
}

/** Why an authenticated caller may not use a route (403). */
export interface Refusal {
  code: string;
  message: string;
}

export interface RouteSpec {
  /** The route template for logs and metrics (`/v0.1/shield/cases/:id`). */
  template: string;
  takesBody: boolean;
}

export class ShieldHttpEdge {
  constructor(readonly options: ShieldHttpEdgeOptions) {}

  /** Authenticates, reads the body, runs `work`, answers with `status` or the failure's status. */
  async run(request: IncomingMessage, response: ServerResponse, route: RouteSpec, status: number, work: (caller: ShieldCaller, body: unknown) => Promise<ServiceResult<unknown>>): Promise<void> {
    await this.guarded(request, response, route.template, async () => {
      const admitted = await this.admit(request, response, route.takesBody);
      if (!admitted) return;
      const result = await work(admitted.caller, admitted.body);
      if (result.ok) send(response, status, result.value);
      else send(response, STATUS[result.failure.kind], { error: result.failure.error, issues: result.failure.issues });
    });
  }

  /**
   * Authenticates and reads the body; on refusal answers (401, 403, 415, 400, 413) and returns null.
   * `authorize` may refuse an authenticated caller with 403 (its code and message).
   */
  async admit(request: IncomingMessage, response: ServerResponse, takesBody: boolean, authorize?: (caller: ShieldCaller) => Refusal | null): Promise<{ caller: ShieldCaller; body: unknown } | null> {
    const authenticated = await this.options.service.authenticate(bearerOf(request), onBehalfOf(request));
    if (!authenticated.ok) {
      request.resume();
      if (authenticated.failure.kind === 'unauthenticated') response.setHeader('WWW-Authenticate', 'Bearer');
      send(response, STATUS[authenticated.failure.kind], { error: authenticated.failure.error, issues: authenticated.failure.issues });
      return null;
    }
    const caller = authenticated.value;
    const refusal = authorize?.(caller);
    if (refusal) {
      request.resume();
      failWith(response, 403, refusal.code, refusal.message);
      return null;
    }
    if (!takesBody) {
      request.resume();
      return { caller, body: undefined };
    }
    if (!hasJsonContentType(request)) {
      request.resume();
      failWith(response, 415, 'SHIELD_CONTENT_TYPE_UNSUPPORTED', 'Send the body as Content-Type: application/json');
      return null;
    }
    try {
      return { caller, body: await readJson(request, this.options.maxBodyBytes) };
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        response.setHeader('Connection', 'close');
        failWith(response, 413, 'SHIELD_BODY_TOO_LARGE', `The body exceeds ${this.options.maxBodyBytes} bytes`);
      } else if (error instanceof BodyNotJson) {
        const issue = notJsonIssue('The body', error.issue);
        send(response, 400, { error: issue.message, issues: [issue] });
      } else throw error;
      return null;
    }
  }

  /**
   * Runs `handle`, answering 503 `SHIELD_UNAVAILABLE` if it throws because the database is unreachable (retry
   * later) and 500 otherwise (the error's name only in the log), then logs and counts the request.
   */
  async guarded(request: IncomingMessage, response: ServerResponse, template: string, handle: () => Promise<void>): Promise<void> {
    const started = Date.now();
    response.setHeader('Cache-Control', 'no-store');
    try {
      await handle();
    } catch (error) {
      const unavailable = isUnavailable(error);
      this.options.logger.log(unavailable ? 'warn' : 'error', 'shield request failed', { route: template, errorName: error instanceof Error ? error.name : 'unknown', unavailable });
      if (!response.headersSent && unavailable) {
        response.setHeader('Retry-After', '5');
        failWith(response, 503, UNAVAILABLE.code, UNAVAILABLE.message);
      } else if (!response.headersSent) failWith(response, 500, 'SHIELD_INTERNAL', 'Internal error');
    }
    const method = request.method ?? '';
    this.options.onAnswered?.(method, template, response.statusCode);
    this.options.logger.log('info', 'shield request', { method, route: template, status: response.statusCode, durationMs: Date.now() - started });
  }
}

/** `trustmesh-on-behalf-of` (one value; a repeated header is joined by Node, and refused as malformed). */
function onBehalfOf(request: IncomingMessage): string | undefined {
  const value = request.headers[ON_BEHALF_OF_HEADER];
  return typeof value === 'string' ? value.slice(0, MAX_ON_BEHALF_OF + 1) : undefined;
}

function bearerOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header) : null;
  return match?.[1];
}

/**
 * Reads one JSON body of at most `maxBytes`. Strict: a duplicate key (which JSON.parse would silently
 * resolve), a lone surrogate, invalid UTF-8 or nesting past the bound is not one JSON value this service
 * will act on.
 */
async function readJson(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const body = await readBoundedBody(request, maxBytes);
  if (body.length === 0) throw new BodyNotJson();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new BodyNotJson();
  }
  const parsed = parseStrictJson(text, { loneSurrogates: 'refuse' });
  if (!parsed.ok) throw new BodyNotJson(parsed.issue);
  return parsed.value;
}

export function failWith(response: ServerResponse, status: number, code: string, message: string): void {
  send(response, status, { error: message, issues: [{ code, path: '', message }] });
}

export function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'X-Content-Type-Options': 'nosniff' });
  response.end(text);
}
