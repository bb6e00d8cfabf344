/**
 * The public shapes of the safe fetcher (CARDS.md §3.3 "Safe fetching"): options, the response, and the stable error
 * codes a caller can branch on. Errors are values; the fetcher never throws on a bad URL or a hostile server.
 */
import type { AddressClass } from './address.classifier';

export const SAFE_FETCH_ERROR_CODES = [
  'FETCH_URL_INVALID',
  'FETCH_SCHEME_REFUSED',
  'FETCH_ADDRESS_REFUSED',
  'FETCH_DNS',
  'FETCH_CONNECT',
  'FETCH_TLS',
  'FETCH_TIMEOUT',
  'FETCH_HEADER_TIMEOUT',
  'FETCH_TOO_LARGE',
  'FETCH_SIZE_MISMATCH',
  'FETCH_REDIRECT_REFUSED',
  'FETCH_TOO_MANY_REDIRECTS',
  'FETCH_HTTP_STATUS',
  'FETCH_ABORTED',
  'FETCH_NETWORK',
] as const;
export type SafeFetchErrorCode = (typeof SAFE_FETCH_ERROR_CODES)[number];

export interface SafeFetchError {
  readonly code: SafeFetchErrorCode;
  /** JSON pointer of the document member that named the URL (the caller's `pointer`), `''` by default. */
  readonly pointer: string;
  /** A sentence a publisher can act on; never internal error text. */
  readonly message: string;
  /** The URL of the hop that failed (after redirects so far). */
  readonly url: string;
  /** HTTP status for FETCH_HTTP_STATUS. */
  readonly status?: number;
  /** The refused address and its class for FETCH_ADDRESS_REFUSED. */
  readonly address?: string;
  readonly addressClass?: AddressClass;
}

export interface SafeFetchResponse {
  readonly status: number;
  /** Final URL after redirects. */
  readonly url: string;
  /** Response headers, lower-case names; repeated headers joined with `, ` (set-cookie dropped). */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact bytes received (hash these, never a re-serialisation); empty on 304. */
  readonly bytes: Uint8Array;
  readonly etag?: string;
  readonly lastModified?: string;
  /** True when a conditional request got 304 Not Modified. */
  readonly notModified: boolean;
  /** The address the final hop connected to. */
  readonly address: string;
}

export type SafeFetchOutcome = { readonly ok: true; readonly response: SafeFetchResponse } | { readonly ok: false; readonly error: SafeFetchError };

export interface LookupAddress {
  readonly address: string;
  readonly family: number;
}

/** Same contract as `dns.promises.lookup(hostname, { all: true })`. */
export type LookupAll = (hostname: string, options: { all: true }) => Promise<readonly LookupAddress[]>;

export interface SafeFetcherOptions {
  /** DNS resolution; default `dns.promises.lookup`. Tests pass `lookupFromMap`. */
  readonly lookup?: LookupAll;
  /** Trust anchors (PEM) replacing Node's bundled roots; tests pass their test CA. */
  readonly ca?: string | readonly string[];
  /**
   * TEST ONLY. Admits an address the classifier refuses (e.g. the 127.0.0.1 a test server listens on). Never set in
   * production wiring: it reopens the SSRF hole this fetcher exists to close. Public addresses need no admission.
   */
  readonly admitAddressForTests?: (address: string, addressClass: AddressClass) => boolean;
  /** Default 5. */
  readonly maxRedirects?: number;
  /** Default 1 MiB. */
  readonly maxBytes?: number;
  /** Whole request, all hops, including the body. Default 15 s. */
  readonly timeoutMs?: number;
  /** From connecting until the response head arrives, per hop. Default 5 s. */
  readonly headerTimeoutMs?: number;
  readonly userAgent?: string;
}

export interface SafeFetchRequest {
  /** Per-call overrides of the fetcher's defaults. */
  readonly maxRedirects?: number;
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  readonly headerTimeoutMs?: number;
  /** Size announced by the document (e.g. attestation `size`): caps the read and must match exactly. */
  readonly expectedSize?: number;
  readonly ifNoneMatch?: string;
  readonly ifModifiedSince?: string;
  readonly accept?: string;
  readonly signal?: AbortSignal;
  /** JSON pointer copied into errors so a caller can report which member named the URL. */
  readonly pointer?: string;
}
