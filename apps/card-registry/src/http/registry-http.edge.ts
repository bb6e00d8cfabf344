/**
 * The HTTP edge every registry route shares: bearer authentication, bounded bodies read by us (never a
 * framework parser: 413 beyond the bound, counted while reading), refusals as RFC 7807 problem documents
 * `{type, title, status, code, detail, issues: [{path, code, severity, message}]}` that never echo input
 * or internal error text (CARDS.md §5 "Validation errors"), and one request log line (method, route
 * template, status, duration) plus the operator metrics.
 *
 * Statuses: 400 a malformed request, 401 no or unknown credential, 403 not allowed (operator-only, a
 * namespace not granted), 404 unknown, 409 a conflict (immutability, staleness, a race lost), 410 deleted
 * (with the tombstone), 413 too large, 415 not JSON, 422 a document that does not validate, 429 a rate
 * limit or the publish quota (with Retry-After), 503 the database is unreachable (retry).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { MAX_ON_BEHALF_OF, ON_BEHALF_OF_HEADER } from '@trustmesh/platform-credentials';
import { BodyTooLargeError, readBoundedBody } from '@trustmesh/platform-http-body';
import type { Logger } from '@trustmesh/platform-logging';
import { rateLimitedHeaders, sourceAddress } from '@trustmesh/platform-rate-limits';
import { parseStrictJson } from '@trustmesh/shared-strict-json';

import type { RegistryLimits } from '../limits/registry-limits';
import type { RegistryCaller, RegistryCallers } from '../service/registry-callers';
import { isUnavailable, UNAVAILABLE, type FailureKind, type ProblemIssue, type ServiceFailure, type ServiceResult } from '../service/registry-service.result';

export const REGISTRY_HTTP_EDGE = Symbol.for('trustmesh.card-registry.HttpEdge');

const STATUS: Record<FailureKind, number> = { invalid: 400, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409, gone: 410, unprocessable: 422, exhausted: 429 };
const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable document',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

export interface RegistryHttpEdgeOptions {
  callers: RegistryCallers;
  logger: Logger;
  maxBodyBytes: number;
  maxCardBytes: number;
  onAnswered?: (method: string, route: string, status: number) => void;
  /** Per-source and per-credential limits (429 + Retry-After); none in tests that do not ask. */
  limits?: RegistryLimits;
}

/** A request refused before the work ran: its answer was sent. */
export const REFUSED = Symbol('refused');

export class RegistryHttpEdge {
  constructor(readonly options: RegistryHttpEdgeOptions) {}

  /** Runs `handle`, answering 503 when the database is unreachable and 500 otherwise; logs and counts the request. */
  async guarded(request: IncomingMessage, response: ServerResponse, template: string, handle: () => Promise<void>): Promise<void> {
    const started = Date.now();
    response.setHeader('Cache-Control', 'no-store');
    try {
      // Counted before anything else, so a flood of bad or unauthenticated requests is limited too.
      const verb = request.method ?? '';
      const limited = this.options.limits?.admitSource(sourceAddress(request, this.options.limits.trustedProxies), verb === 'GET' || verb === 'HEAD' ? 'read' : 'write');
      // No route takes more than a card: a larger declared body is refused before any route reads it.
      const declared = Number(request.headers['content-length'] ?? 0);
      const largest = Math.max(this.options.maxCardBytes, this.options.maxBodyBytes);
      if (limited) {
        request.resume();
        sendFailure(response, limited);
      } else if (declared > largest) {
        request.resume();
        response.setHeader('Connection', 'close');
        problem(response, 413, 'BODY_TOO_LARGE', `The body exceeds ${largest} bytes`);
      } else await handle();
    } catch (error) {
      const unavailable = isUnavailable(error);
      this.options.logger.log(unavailable ? 'warn' : 'error', 'registry request failed', { route: template, errorName: error instanceof Error ? error.name : 'unknown', unavailable });
      if (!response.headersSent && unavailable) {
        response.setHeader('Retry-After', '5');
        problem(response, 503, UNAVAILABLE.code, UNAVAILABLE.message);
      } else if (!response.headersSent) problem(response, 500, 'REGISTRY_INTERNAL', 'Internal error');
    }
    const method = request.method ?? '';
    this.options.onAnswered?.(method, template, response.statusCode);
    this.options.logger.log('info', 'registry request', { method, route: template, status: response.statusCode, durationMs: Date.now() - started });
  }

  /** The authenticated caller, or REFUSED after answering 401 (403 for a service credential acting outside its prefix). */
  async caller(request: IncomingMessage, response: ServerResponse): Promise<RegistryCaller | typeof REFUSED> {
    const authenticated = await this.options.callers.authenticate(bearerOf(request), onBehalfOf(request));
    if (!authenticated.ok) {
      request.resume();
      if (authenticated.failure.kind === 'unauthenticated') response.setHeader('WWW-Authenticate', 'Bearer');
      sendFailure(response, authenticated.failure);
      return REFUSED;
    }
    const limited = this.options.limits?.admitCaller(authenticated.value);
    if (limited) {
      request.resume();
      sendFailure(response, limited);
      return REFUSED;
    }
    return authenticated.value;
  }

  /** The raw bytes of a card document (at most REGISTRY_MAX_CARD_BYTES), or REFUSED after answering. */
  async cardBytes(request: IncomingMessage, response: ServerResponse): Promise<Buffer | typeof REFUSED> {
    if (!isJsonMediaType(request)) {
      request.resume();
      problem(response, 415, 'CONTENT_TYPE_UNSUPPORTED', 'Send the document as application/json (or an application/*+json type)');
      return REFUSED;
    }
    return this.bounded(request, response, this.options.maxCardBytes, 'DOCUMENT_TOO_LARGE', 'The document');
  }

  /** One strict JSON body (at most REGISTRY_MAX_BODY_BYTES), or REFUSED after answering. */
  async jsonBody(request: IncomingMessage, response: ServerResponse): Promise<unknown> {
    if (!isJsonMediaType(request)) {
      request.resume();
      problem(response, 415, 'CONTENT_TYPE_UNSUPPORTED', 'Send the body as Content-Type: application/json');
      return REFUSED;
    }
    const body = await this.bounded(request, response, this.options.maxBodyBytes, 'BODY_TOO_LARGE', 'The body');
    if (body === REFUSED) return REFUSED;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      problem(response, 400, 'BODY_NOT_JSON', 'The body must be one JSON value in UTF-8');
      return REFUSED;
    }
    const parsed = parseStrictJson(text, { loneSurrogates: 'refuse' });
    if (parsed.ok) return parsed.value;
    problem(response, 400, 'BODY_NOT_JSON', `The body must be one JSON value without duplicate keys or lone surrogates (${parsed.issue.code})`, parsed.issue.pointer ?? '');
    return REFUSED;
  }

  /** Answers a service result: `status` with the value as JSON, or the failure as a problem document. */
  /**
   * A route for an authenticated caller: its credential checked, its JSON body read within the bound when
   * the route takes one (else drained), then `work`'s result answered with `status`.
   */
  authenticated<T>(request: IncomingMessage, response: ServerResponse, template: string, takesBody: boolean, status: number | ((value: T) => number), work: (caller: RegistryCaller, body: unknown) => Promise<ServiceResult<T>>): Promise<void> {
    return this.guarded(request, response, template, async () => {
      const caller = await this.caller(request, response);
      if (caller === REFUSED) return;
      let body: unknown;
      if (takesBody) {
        body = await this.jsonBody(request, response);
        if (body === REFUSED) return;
      } else request.resume();
      this.answer(response, await work(caller, body), status);
    });
  }

  answer<T>(response: ServerResponse, result: ServiceResult<T>, status: number | ((value: T) => number) = 200): void {
    if (result.ok) sendJson(response, typeof status === 'number' ? status : status(result.value), result.value);
    else sendFailure(response, result.failure);
  }

  private async bounded(request: IncomingMessage, response: ServerResponse, maxBytes: number, code: string, what: string): Promise<Buffer | typeof REFUSED> {
    try {
      return await readBoundedBody(request, maxBytes);
    } catch (error) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      response.setHeader('Connection', 'close');
      problem(response, 413, code, `${what} exceeds ${maxBytes} bytes`);
      return REFUSED;
    }
  }
}

function isJsonMediaType(request: IncomingMessage): boolean {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
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

export function sendFailure(response: ServerResponse, failure: ServiceFailure): void {
  const status = STATUS[failure.kind];
  const retryAfterSeconds = failure.extra?.['retryAfterSeconds'];
  if (typeof retryAfterSeconds === 'number') response.setHeader('Retry-After', rateLimitedHeaders({ retryAfterSeconds })['Retry-After']);
  sendProblem(response, status, failure.code, failure.detail, failure.issues, failure.extra);
}

export function problem(response: ServerResponse, status: number, code: string, detail: string, path = ''): void {
  sendProblem(response, status, code, detail, [{ path, code, severity: 'error', message: detail }]);
}

function sendProblem(response: ServerResponse, status: number, code: string, detail: string, issues: readonly ProblemIssue[], extra: Record<string, unknown> = {}): void {
  const body = { type: `urn:trustmesh:registry:problem:${code}`, title: TITLES[status] ?? 'Error', status, code, detail, issues, ...extra };
  send(response, status, 'application/problem+json', JSON.stringify(body));
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

export function send(response: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  response.end(body);
}
