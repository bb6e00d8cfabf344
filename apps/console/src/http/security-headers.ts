/**
 * The headers every answer of the console carries, page and API alike. The Content-Security-Policy lets the
 * page load only its own scripts and styles (plus inline styles, which Mantine writes), connect only to the
 * console and the relay's WebSocket origin, and never be framed; no referrer leaves the console (a relay
 * ticket or a workspace id in a URL stays here).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function contentSecurityPolicy(relayWebSocketOrigin: string): string {
  return [
    "default-src 'self'",
    `connect-src 'self' ${relayWebSocketOrigin}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

export function securityHeaders(relayWebSocketOrigin: string): (request: IncomingMessage, response: ServerResponse, next: () => void) => void {
  const csp = contentSecurityPolicy(relayWebSocketOrigin);
  return (_request, response, next) => {
    response.setHeader('Content-Security-Policy', csp);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    response.setHeader('X-Frame-Options', 'DENY');
    response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    next();
  };
}
