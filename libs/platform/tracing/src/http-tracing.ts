/**
 * Trace context over HTTP edges: an Express-style middleware (Nest's `app.use`) that runs each request under
 * a SERVER span, a child of the caller's span when a `traceparent` header came with it, and ends it when the
 * response is sent. The span carries the method, the path without its query (which may hold tokens) and the
 * status; never headers or bodies. The probes every app answers (`/healthz`, `/readyz`, `/metrics`) are not
 * traced: an orchestrator polls them every few seconds, and each would be a trace of its own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { SpanStatusCode } from '@opentelemetry/api';

import { runInSpan, startSpan } from './spans';

const MAX_PATH_LENGTH = 256;
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export type HttpMiddleware = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

/** The middleware; `app.use(tracedHttpRequests())` before the routes. */
export function tracedHttpRequests(): HttpMiddleware {
  return (request, response, next) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (PROBES.has(path)) {
      next();
      return;
    }
    const header = request.headers['traceparent'];
    const method = (request.method ?? 'GET').slice(0, 16);
    const span = startSpan(method, {
      kind: 'server',
      parent: typeof header === 'string' ? header : null,
      attributes: { 'http.request.method': method, 'url.path': path.slice(0, MAX_PATH_LENGTH) },
    });
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    response.once('finish', end);
    response.once('close', end);
    runInSpan(span, next);
  };
}
