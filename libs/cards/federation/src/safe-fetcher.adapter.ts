/**
 * The CrawlFetcher port over @trustmesh/cards-fetcher's SafeFetcher (CARDS.md §3.3 "Safe fetching"): https only,
 * every address checked on every redirect hop, size and time capped. Conditional validators become `If-None-Match` /
 * `If-Modified-Since`; SafeFetcher's error codes (FETCH_ADDRESS_REFUSED, FETCH_TOO_LARGE, FETCH_HTTP_STATUS...) pass
 * through unchanged as the problem codes of the crawl.
 */
import type { SafeFetcher } from '@trustmesh/cards-fetcher';
import type { CrawlFetcher } from './crawl.types';

export function safeFetcherPort(fetcher: SafeFetcher): CrawlFetcher {
  return {
    async get(url, request) {
      const outcome = await fetcher.fetch(url, {
        maxBytes: request.maxBytes,
        ...(request.etag !== undefined ? { ifNoneMatch: request.etag } : {}),
        ...(request.lastModified !== undefined ? { ifModifiedSince: request.lastModified } : {}),
        ...(request.accept !== undefined ? { accept: request.accept } : {}),
        ...(request.signal !== undefined ? { signal: request.signal } : {}),
      });
      if (!outcome.ok) {
        const { code, message, status } = outcome.error;
        return { error: code, message, ...(status !== undefined ? { status } : {}) };
      }
      const { status, url: finalUrl, headers, bytes, etag, lastModified, notModified } = outcome.response;
      return { status, url: finalUrl, headers, bytes, notModified, ...(etag !== undefined ? { etag } : {}), ...(lastModified !== undefined ? { lastModified } : {}) };
    },
  };
}
