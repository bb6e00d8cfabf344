/**
 * SafeFetcher: the only way the registry reads a URL a publisher gave it (CARDS.md §3.3 "Safe fetching", §5 crawling
 * and the ownership file).
 *
 * Rules it keeps, per hop:
 * - `https:` only, no credentials in the URL;
 * - the host is resolved here (injectable `lookup`), EVERY answer is classified, and one refused answer refuses the
 *   hop (a mixed answer is how rebinding attacks start);
 * - the socket connects to the checked address itself (pinned through the request's `lookup` hook, so Node makes no
 *   second DNS query) while SNI, certificate checks and `Host` still use the host name;
 * - redirects are followed by hand, each target re-checked (scheme and address), at most `maxRedirects`;
 * - the body is streamed and the request aborted as soon as it passes the byte cap; one AbortSignal bounds the whole
 *   call, and a separate timer bounds the wait for each response head.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';

import { classifyAddress, isIpLiteral } from './address.classifier';
import type { LookupAll, SafeFetchError, SafeFetchErrorCode, SafeFetcherOptions, SafeFetchOutcome, SafeFetchRequest } from './safe-fetch.types';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TLS_ERROR_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

export const SAFE_FETCH_DEFAULTS = {
  maxRedirects: 5,
  maxBytes: 1024 * 1024,
  timeoutMs: 15_000,
  headerTimeoutMs: 5_000,
  userAgent: 'Trustmesh-Registry/1 (+https://trustmesh.dev/registry)',
} as const;

interface Pinned {
  readonly address: string;
  readonly family: 4 | 6;
}

type HopResult =
  | { kind: 'response'; status: number; headers: Record<string, string>; bytes: Uint8Array; address: string }
  | { kind: 'error'; code: SafeFetchErrorCode; message: string; extra?: Partial<SafeFetchError> };

/** Thrown only inside a hop to carry a classified failure out of stream callbacks; never escapes `fetch`. */
class HopFailure extends Error {
  constructor(
    readonly code: SafeFetchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export class SafeFetcher {
  private readonly lookup: LookupAll;

  constructor(private readonly options: SafeFetcherOptions = {}) {
    this.lookup = options.lookup ?? ((hostname, opts) => dnsLookup(hostname, { ...opts, verbatim: true }));
  }

  async fetch(url: string, req: SafeFetchRequest = {}): Promise<SafeFetchOutcome> {
    const pointer = req.pointer ?? '';
    const maxRedirects = req.maxRedirects ?? this.options.maxRedirects ?? SAFE_FETCH_DEFAULTS.maxRedirects;
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs ?? SAFE_FETCH_DEFAULTS.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
    const fail = (code: SafeFetchErrorCode, message: string, at: string, extra: Partial<SafeFetchError> = {}): SafeFetchOutcome => ({
      ok: false,
      error: { code, pointer, message, url: at, ...extra },
    });

    let current = url;
    for (let hop = 0; ; hop++) {
      let target: URL;
      try {
        target = new URL(current);
      } catch {
        return fail('FETCH_URL_INVALID', `"${current}" is not an absolute URL`, current);
      }
      if (target.protocol !== 'https:') {
        return fail('FETCH_SCHEME_REFUSED', `only https: URLs are fetched; got ${target.protocol}`, target.href);
      }
      if (target.username || target.password) {
        return fail('FETCH_URL_INVALID', 'URLs with user names or passwords are not fetched', target.href);
      }
      // Whatever a hop reports after the signal fired is a consequence of the abort: name the cause instead.
      const failHop = (code: SafeFetchErrorCode, message: string, extra?: Partial<SafeFetchError>): SafeFetchOutcome => {
        if (!signal.aborted || code === 'FETCH_TOO_LARGE') return fail(code, message, target.href, extra);
        if (timeout.aborted) return fail('FETCH_TIMEOUT', `no complete response within ${timeoutMs} ms`, target.href);
        return fail('FETCH_ABORTED', 'the fetch was cancelled', target.href);
      };
      const pinned = await this.resolve(target.hostname, signal);
      if ('code' in pinned) return failHop(pinned.code, pinned.message, pinned.extra);

      const result = await this.hop(target, pinned, req, signal);
      if (result.kind === 'error') return failHop(result.code, result.message, result.extra);
      const { status, headers, bytes, address } = result;
      if (REDIRECT_STATUSES.has(status)) {
        const location = headers['location'];
        if (maxRedirects === 0) {
          return fail('FETCH_REDIRECT_REFUSED', `this URL must be served directly, but it answered ${status} (redirect)`, target.href, { status });
        }
        if (hop >= maxRedirects) return fail('FETCH_TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects`, target.href, { status });
        if (!location) return fail('FETCH_HTTP_STATUS', `redirect status ${status} without a Location header`, target.href, { status });
        try {
          current = new URL(location, target).href;
        } catch {
          return fail('FETCH_URL_INVALID', 'the redirect Location is not a valid URL', target.href, { status });
        }
        continue;
      }
      const notModified = status === 304 && (req.ifNoneMatch !== undefined || req.ifModifiedSince !== undefined);
      if (!notModified && (status < 200 || status > 299)) {
        return fail('FETCH_HTTP_STATUS', `the server answered HTTP ${status}`, target.href, { status });
      }
      if (!notModified && req.expectedSize !== undefined && bytes.length !== req.expectedSize) {
        return fail('FETCH_SIZE_MISMATCH', `expected ${req.expectedSize} bytes, received ${bytes.length}`, target.href);
      }
      return {
        ok: true,
        response: {
          status,
          url: target.href,
          headers,
          bytes,
          notModified,
          address,
          ...(headers['etag'] !== undefined ? { etag: headers['etag'] } : {}),
          ...(headers['last-modified'] !== undefined ? { lastModified: headers['last-modified'] } : {}),
        },
      };
    }
  }

  private async resolve(hostname: string, signal: AbortSignal): Promise<Pinned | { code: SafeFetchErrorCode; message: string; extra?: Partial<SafeFetchError> }> {
    const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    let candidates: readonly { address: string; family: number }[];
    if (isIpLiteral(literal)) {
      candidates = [{ address: literal, family: 0 }];
    } else {
      let onAbort = (): void => undefined;
      try {
        candidates = await Promise.race([
          this.lookup(literal, { all: true }),
          new Promise<never>((_, reject) => {
            onAbort = () => reject(new HopFailure('FETCH_ABORTED', 'aborted'));
            if (signal.aborted) onAbort();
            else signal.addEventListener('abort', onAbort, { once: true });
          }),
        ]);
      } catch {
        return { code: 'FETCH_DNS', message: `the host name ${literal} does not resolve` };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      if (candidates.length === 0) return { code: 'FETCH_DNS', message: `the host name ${literal} has no addresses` };
    }
    let pinned: Pinned | null = null;
    for (const candidate of candidates) {
      const verdict = classifyAddress(candidate.address);
      const admitted = verdict.class === 'public' || (verdict.class !== 'invalid' && this.options.admitAddressForTests?.(verdict.address, verdict.class) === true);
      if (!admitted) {
        return {
          code: 'FETCH_ADDRESS_REFUSED',
          message: `${literal} points to a ${verdict.class} address (${verdict.address}); the registry only fetches from public addresses`,
          extra: { address: verdict.address, addressClass: verdict.class },
        };
      }
      pinned ??= { address: verdict.address, family: verdict.family };
    }
    return pinned ?? { code: 'FETCH_DNS', message: `the host name ${literal} has no addresses` };
  }

  private hop(target: URL, pinned: Pinned, req: SafeFetchRequest, signal: AbortSignal): Promise<HopResult> {
    const maxBytes = Math.min(req.maxBytes ?? this.options.maxBytes ?? SAFE_FETCH_DEFAULTS.maxBytes, req.expectedSize ?? Infinity);
    const headerTimeoutMs = req.headerTimeoutMs ?? this.options.headerTimeoutMs ?? SAFE_FETCH_DEFAULTS.headerTimeoutMs;
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent ?? SAFE_FETCH_DEFAULTS.userAgent,
      accept: req.accept ?? '*/*',
      'accept-encoding': 'identity',
    };
    if (req.ifNoneMatch !== undefined) headers['if-none-match'] = req.ifNoneMatch;
    if (req.ifModifiedSince !== undefined) headers['if-modified-since'] = req.ifModifiedSince;
    // The pinned address answers every lookup Node makes for this socket: no second DNS query, no rebinding.
    const pinnedLookup: LookupFunction = (_host, options, callback) => {
      if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    };
    const ca = this.options.ca;

    return new Promise<HopResult>((resolve) => {
      let settled = false;
      const finish = (result: HopResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(headerTimer);
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const fail = (error: unknown): void => finish(classifyFailure(error));
      const onAbort = (): void => {
        const error = new HopFailure('FETCH_ABORTED', 'aborted');
        clientRequest.destroy(error);
        fail(error);
      };
      const clientRequest = request({
        protocol: 'https:',
        hostname: target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname,
        port: target.port || 443,
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers,
        agent: false,
        lookup: pinnedLookup,
        ...(ca !== undefined ? { ca: typeof ca === 'string' ? ca : [...ca] } : {}),
      });
      clientRequest.on('error', fail);
      const headerTimer = setTimeout(() => {
        const error = new HopFailure('FETCH_HEADER_TIMEOUT', `no response headers within ${headerTimeoutMs} ms`);
        clientRequest.destroy(error);
        fail(error);
      }, headerTimeoutMs);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      clientRequest.on('response', (res: IncomingMessage) => {
        clearTimeout(headerTimer);
        const status = res.statusCode ?? 0;
        const responseHeaders = flattenHeaders(res);
        const declared = Number(responseHeaders['content-length']);
        // A redirect's or a 304's body is never used: stop reading at the head, so a hostile body cannot stall us.
        if (REDIRECT_STATUSES.has(status) || status === 304) {
          finish({ kind: 'response', status, headers: responseHeaders, bytes: new Uint8Array(0), address: pinned.address });
          return void clientRequest.destroy();
        }
        if (Number.isFinite(declared) && declared > maxBytes) {
          finish({ kind: 'error', code: 'FETCH_TOO_LARGE', message: `the response declares ${declared} bytes; the limit is ${maxBytes}` });
          return void clientRequest.destroy();
        }
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxBytes) {
            finish({ kind: 'error', code: 'FETCH_TOO_LARGE', message: `the response is larger than the limit of ${maxBytes} bytes` });
            return void clientRequest.destroy();
          }
          chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('aborted', () => fail(new HopFailure('FETCH_NETWORK', 'the connection closed before the body was complete')));
        res.on('end', () => {
          if (!res.complete) return fail(new HopFailure('FETCH_NETWORK', 'the connection closed before the body was complete'));
          const body = Buffer.concat(chunks);
          finish({ kind: 'response', status, headers: responseHeaders, bytes: new Uint8Array(body.buffer, body.byteOffset, body.length), address: pinned.address });
        });
      });
      clientRequest.end();
    });
  }
}

function flattenHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || name === 'set-cookie') continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function classifyFailure(error: unknown): HopResult {
  if (error instanceof HopFailure) return { kind: 'error', code: error.code, message: error.message };
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
  if (TLS_ERROR_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) {
    return { kind: 'error', code: 'FETCH_TLS', message: `the TLS certificate could not be verified (${code})` };
  }
  if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT') {
    return { kind: 'error', code: 'FETCH_CONNECT', message: `could not connect (${code})` };
  }
  return { kind: 'error', code: 'FETCH_NETWORK', message: code ? `the connection failed (${code})` : 'the connection failed' };
}
