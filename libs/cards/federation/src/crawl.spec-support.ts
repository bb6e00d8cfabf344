/**
 * Test support for the crawler specs (excluded from the library build): a real HTTPS site on 127.0.0.1 whose routes
 * each test rewrites, a crawl function wired through SafeFetcher exactly as production wires it (only the test CA and
 * the loopback admission differ), and builders for the documents a source serves. The fixtures are our own.
 */
import { createHash } from 'node:crypto';

import { SafeFetcher, type SafeFetcherOptions } from '@trustmesh/cards-fetcher';
import { admitLoopbackForTests, createTestCa, lookupFromMap, startHttpsServer, type TestHttpsServer, type TestRoute, type TestRouteHandler } from '@trustmesh/cards-fetcher/testing';
import type { CrawlLimits, CrawlOutcome, CrawlState } from './crawl.types';
import { safeFetcherPort } from './safe-fetcher.adapter';
import { crawlSource } from './source.crawler';

export const CATALOG_TYPE = 'application/ai-catalog+json';

export interface TestSite {
  readonly origin: string;
  readonly server: TestHttpsServer;
  /** Mutable: the server reads it on every request. */
  readonly routes: Record<string, TestRouteHandler>;
  at(path: string): string;
  reset(): void;
  crawl(previous?: CrawlState, options?: { limits?: Partial<CrawlLimits>; fetcher?: SafeFetcherOptions; source?: string }): Promise<CrawlOutcome>;
  close(): Promise<void>;
}

export async function startTestSite(): Promise<TestSite> {
  const ca = await createTestCa();
  const routes: Record<string, TestRouteHandler> = {};
  const server = await startHttpsServer(routes, { ca, hostnames: ['acme.test'] });
  const lookup = lookupFromMap({ 'acme.test': '127.0.0.1' });
  return {
    origin: server.origin,
    server,
    routes,
    at: (path) => `${server.origin}${path}`,
    reset: () => {
      for (const key of Object.keys(routes)) delete routes[key];
    },
    crawl: (previous, options = {}) => {
      const fetcher = new SafeFetcher({ lookup, ca: ca.cert, admitAddressForTests: admitLoopbackForTests, ...options.fetcher });
      return crawlSource({ url: options.source ?? server.origin }, previous, { fetcher: safeFetcherPort(fetcher), limits: { deadlineMs: 20_000, ...options.limits } });
    },
    close: () => server.close(),
  };
}

/** A JSON document route; with `etag`, a conditional GET carrying it gets 304 (counted in `hits`). */
export function json(value: unknown, options: { type?: string; etag?: string; headers?: Record<string, string> } = {}): TestRouteHandler {
  const body = typeof value === 'string' ? value : JSON.stringify(value);
  const headers = { 'content-type': options.type ?? 'application/json', ...(options.etag ? { etag: options.etag } : {}), ...options.headers };
  const etag = options.etag;
  if (etag === undefined) return { headers, body };
  return (req): TestRoute => (req.headers['if-none-match'] === etag ? { status: 304, headers: { etag } } : { headers, body });
}

export function sha256(text: string): string {
  return `sha-256:${createHash('sha256').update(text).digest('hex')}`;
}

export function aiCard(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    $schema: 'https://schemas.acme.test/ai-card-v1.json',
    specVersion: '1.0',
    id,
    name: `Agent ${id.split(':').pop() ?? ''}`,
    description: 'Answers questions about invoices.',
    publisher: { id: 'did:web:acme.test', name: 'Acme' },
    services: { a2a: { type: 'a2a', name: 'Invoices over A2A', protocolSpecific: {} } },
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-02-01T00:00:00Z',
    ...extra,
  };
}

export function seedCatalog(cards: readonly { id: string; cardUrl: string }[]): Record<string, unknown> {
  return {
    $schema: 'https://schemas.acme.test/ai-catalog-v1.json',
    host: { name: 'Acme' },
    aiCards: cards.map(({ id, cardUrl }) => ({ id, name: `Agent ${id}`, description: 'An agent of Acme.', cardUrl, updatedAt: '2026-02-01T00:00:00Z' })),
  };
}

export function finalCatalog(entries: readonly Record<string, unknown>[]): Record<string, unknown> {
  return { specVersion: '1.0', host: { displayName: 'Acme' }, entries };
}

/** A final-catalog entry for an AI Card v1 served as plain JSON. */
export function cardEntry(identifier: string, url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { identifier, type: 'application/json', url, ...extra };
}

export function catalogEntry(identifier: string, url: string): Record<string, unknown> {
  return { identifier, type: CATALOG_TYPE, url };
}
