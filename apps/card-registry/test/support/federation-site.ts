/**
 * Federation sources for the registry's e2e suites: one real HTTPS server on 127.0.0.1 (certificate from a test CA of
 * `@trustmesh/cards-fetcher/testing`) answering for several host names, each with routes a test rewrites; a route may
 * answer 304 to a conditional GET carrying its ETag. `registryEnv` is what a registry needs to crawl it: the
 * registry's REGISTRY_TEST_ONLY_* fetch overrides (the test CA, a host table, the admission of 127.0.0.1).
 * The catalogs and cards are written for these tests (seed AI Catalog and AI Card v1 forms).
 */
import type { IncomingMessage } from 'node:http';

import { createTestCa, startHttpsServer, type TestHttpsServer, type TestRoute, type TestRouteHandler } from '@trustmesh/cards-fetcher/testing';

export interface SiteRoute {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  etag?: string;
  headDelayMs?: number;
}

export interface FederationSite {
  readonly port: number;
  readonly server: TestHttpsServer;
  /** `https://<host>:<port>` */
  origin(host: string): string;
  /** Serves `route` at `host` + `path` (replacing what was there); undefined removes it (404). */
  serve(host: string, path: string, route: SiteRoute | undefined): void;
  /** Requests that reached `host` + `path`, with the If-None-Match they carried. */
  hits(host: string, path: string): Array<{ ifNoneMatch?: string }>;
  /** The registry's REGISTRY_TEST_ONLY_* fetch overrides for this site (extra names resolve as given). */
  registryEnv(extraHosts?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function startFederationSite(hostnames: readonly string[]): Promise<FederationSite> {
  const ca = await createTestCa();
  const sites = new Map<string, Map<string, SiteRoute>>();
  const log: Array<{ host: string; path: string; ifNoneMatch?: string }> = [];
  const routes: Record<string, TestRouteHandler> = {};
  const hostOf = (request: IncomingMessage) => (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  const dispatch =
    (path: string) =>
    (request: IncomingMessage): TestRoute => {
      const host = hostOf(request);
      const ifNoneMatch = request.headers['if-none-match'];
      log.push({ host, path, ...(typeof ifNoneMatch === 'string' ? { ifNoneMatch } : {}) });
      const route = sites.get(host)?.get(path);
      if (!route) return { status: 404, body: 'not found' };
      if (route.etag !== undefined && ifNoneMatch === route.etag) return { status: 304, headers: { etag: route.etag } };
      return {
        status: route.status ?? 200,
        headers: { ...(route.etag !== undefined ? { etag: route.etag } : {}), ...route.headers },
        body: route.body ?? '',
        ...(route.headDelayMs !== undefined ? { headDelayMs: route.headDelayMs } : {}),
      };
    };
  const server = await startHttpsServer(routes, { ca, hostnames });
  return {
    port: server.port,
    server,
    origin: (host) => `https://${host}:${server.port}`,
    serve(host, path, route) {
      const site = sites.get(host) ?? new Map<string, SiteRoute>();
      sites.set(host, site);
      if (route) site.set(path, route);
      else site.delete(path);
      routes[path] ??= dispatch(path);
    },
    hits: (host, path) => log.filter((entry) => entry.host === host && entry.path === path).map(({ ifNoneMatch }) => (ifNoneMatch !== undefined ? { ifNoneMatch } : {})),
    registryEnv: (extraHosts = {}) => ({
      REGISTRY_TEST_ONLY_FETCH_CA_PEM: ca.cert,
      REGISTRY_TEST_ONLY_FETCH_HOSTS: [...hostnames.map((host) => `${host}=127.0.0.1`), ...Object.entries(extraHosts).map(([host, address]) => `${host}=${address}`)].join(','),
      REGISTRY_TEST_ONLY_ADMIT_LOOPBACK: 'true',
    }),
    close: () => server.close(),
  };
}

/** A JSON document route. */
export const jsonRoute = (document: unknown, etag?: string, type = 'application/json'): SiteRoute => ({ headers: { 'content-type': type }, body: JSON.stringify(document, null, 2), ...(etag !== undefined ? { etag } : {}) });

/** A seed AI Catalog (`aiCards`) naming each card by id and URL. */
export function seedCatalog(hostName: string, cards: ReadonlyArray<{ id: string; cardUrl: string }>): Record<string, unknown> {
  return {
    $schema: 'https://schemas.example.org/ai-catalog/v1.json',
    host: { name: hostName },
    aiCards: cards.map(({ id, cardUrl }) => ({ id, name: `Agent ${id.split('/').pop() ?? id}`, description: 'An agent this host lists', cardUrl, updatedAt: '2026-02-01T10:00:00Z' })),
  };
}
