/**
 * Key documents over SafeFetcher (CARDS.md §3.3 "Key resolution" and "Safe fetching"): a DID document or JWK Set read
 * by URL as strict JSON, in the shape of the signatures library's `KeyDocumentResolver` (without depending on it).
 * Anything that cannot be had (refused address, HTTP error, too large, not UTF-8, duplicate keys...) is `undefined`.
 *
 * `jsonDocumentFetch` is the same read with the reason of a failure (a stable code) and the SHA-256 of the exact
 * bytes of a success, for a caller that must notice a document changed (the registry's key re-checks).
 *
 * Optional in-memory cache, so verifying many cards of one did:web signer fetches its did.json once. The trade: a key
 * the publisher removes (or adds) is seen at most `ttlMs` later. Keep the TTL short (minutes) where revocation matters.
 */
import { createHash } from 'node:crypto';

import { parseStrictJson } from '@trustmesh/shared-strict-json';

import type { SafeFetcher } from './safe-fetcher';
import type { SafeFetchErrorCode } from './safe-fetch.types';

export interface JsonDocumentCacheOptions {
  /** How long a fetched document is reused; a removed key stays trusted at most this long. */
  readonly ttlMs: number;
  /** Bound on cached URLs; the oldest entry goes first. */
  readonly maxEntries: number;
  /** Clock for expiry (ms since epoch); default `Date.now`. */
  readonly now?: () => number;
}

export interface JsonDocumentResolverOptions {
  /** Byte cap of one document; default 256 KiB (a DID document is a few KiB). */
  readonly maxBytes?: number;
  /** Whole fetch; default the fetcher's. */
  readonly timeoutMs?: number;
  /** Default the fetcher's; 0 refuses any redirect. */
  readonly maxRedirects?: number;
  /** Deepest JSON nesting accepted; default 32. */
  readonly maxDepth?: number;
  readonly accept?: string;
  /** Reuse documents for a while; without it every call fetches. */
  readonly cache?: JsonDocumentCacheOptions;
}

/** `(url) => parsed JSON`, or `undefined` when the document cannot be had; never throws. */
export type JsonDocumentResolver = (url: string) => Promise<unknown>;

/** Why a document could not be had: SafeFetcher's code (FETCH_HTTP_STATUS for any status but 200), or the body's. */
export type JsonDocumentFailureCode = SafeFetchErrorCode | 'KEY_DOCUMENT_NOT_UTF8' | 'KEY_DOCUMENT_NOT_JSON';

/** A fetched document with `digest` = `sha256:<hex>` of its exact bytes, or the reason it could not be had. */
export type JsonDocumentOutcome = { ok: true; document: unknown; digest: string } | { ok: false; code: JsonDocumentFailureCode };

/** `(url) => JsonDocumentOutcome`; never throws. */
export type JsonDocumentFetch = (url: string) => Promise<JsonDocumentOutcome>;

export const JSON_DOCUMENT_DEFAULTS = {
  maxBytes: 256 * 1024,
  maxDepth: 32,
  accept: 'application/did+json, application/did+ld+json, application/jwk-set+json, application/json',
} as const;

interface CacheEntry {
  readonly expiresAt: number;
  readonly value: Promise<JsonDocumentOutcome>;
}

export function jsonDocumentResolver(fetcher: SafeFetcher, options: JsonDocumentResolverOptions = {}): JsonDocumentResolver {
  const fetch = jsonDocumentFetch(fetcher, options);
  return async (url) => {
    const outcome = await fetch(url);
    return outcome.ok ? outcome.document : undefined;
  };
}

export function jsonDocumentFetch(fetcher: SafeFetcher, options: JsonDocumentResolverOptions = {}): JsonDocumentFetch {
  const load = (url: string): Promise<JsonDocumentOutcome> => fetchJson(fetcher, url, options);
  const cache = options.cache;
  if (cache === undefined || cache.ttlMs <= 0 || cache.maxEntries <= 0) return load;
  const now = cache.now ?? Date.now;
  const entries = new Map<string, CacheEntry>();
  return async (url) => {
    const at = now();
    const cached = entries.get(url);
    if (cached !== undefined && cached.expiresAt > at) return cached.value;
    if (cached !== undefined) entries.delete(url);
    // The promise is cached, not the result, so concurrent verifications of one signer share a single fetch.
    const value = load(url);
    entries.set(url, { expiresAt: at + cache.ttlMs, value });
    while (entries.size > cache.maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
    const result = await value;
    // Failures are not remembered: a publisher who fixes its did.json is read again on the next call.
    if (!result.ok && entries.get(url)?.value === value) entries.delete(url);
    return result;
  };
}

async function fetchJson(fetcher: SafeFetcher, url: string, options: JsonDocumentResolverOptions): Promise<JsonDocumentOutcome> {
  const outcome = await fetcher
    .fetch(url, {
      maxBytes: options.maxBytes ?? JSON_DOCUMENT_DEFAULTS.maxBytes,
      accept: options.accept ?? JSON_DOCUMENT_DEFAULTS.accept,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.maxRedirects !== undefined ? { maxRedirects: options.maxRedirects } : {}),
    })
    // SafeFetcher returns its errors; this only keeps the promise of never throwing should that ever break.
    .catch(() => undefined);
  if (outcome === undefined) return { ok: false, code: 'FETCH_NETWORK' };
  if (!outcome.ok) return { ok: false, code: outcome.error.code };
  const bytes = outcome.response.bytes;
  if (outcome.response.status !== 200) return { ok: false, code: 'FETCH_HTTP_STATUS' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, code: 'KEY_DOCUMENT_NOT_UTF8' };
  }
  // I-JSON: what JSON.parse would silently change (duplicate keys, rounded integers) must not choose a key.
  const parsed = parseStrictJson(text, { maxDepth: options.maxDepth ?? JSON_DOCUMENT_DEFAULTS.maxDepth, loneSurrogates: 'refuse', unsafeIntegers: 'refuse' });
  if (!parsed.ok) return { ok: false, code: 'KEY_DOCUMENT_NOT_JSON' };
  return { ok: true, document: deepFreeze(parsed.value), digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}

/** A cached document is shared by every caller: frozen so one caller cannot change what the next one verifies with. */
function deepFreeze(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
