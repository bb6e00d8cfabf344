/**
 * Headers every HTTP response of the gateway carries (the data port's Nest routes and upgrade refusals, and
 * the operator port): the gateway serves JSON and WebSocket upgrades only, so nothing of it should ever be
 * sniffed into another type, framed, or leak a referrer.
 *
 * HSTS goes out in server mode, where TLS is required (files, self-signed, or a terminating proxy in
 * front: the browser sees https either way). Never in embedded development: it serves localhost, and a year
 * of HSTS for localhost would break every other plain-http development server in the person's browser.
 */
import type { RelayGatewayConfig } from '../config/relay-gateway.config';

const BASE: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

export const HSTS = 'max-age=31536000; includeSubDomains';

/** The security headers for this gateway's responses. */
export function securityHeaders(config: Pick<RelayGatewayConfig, 'embedded' | 'tls'>): Readonly<Record<string, string>> {
  return !config.embedded && config.tls.mode !== 'off' ? { ...BASE, 'Strict-Transport-Security': HSTS } : BASE;
}

/** The same headers as raw header lines, for responses written straight to a socket (refused upgrades). */
export function securityHeaderLines(headers: Readonly<Record<string, string>>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}
