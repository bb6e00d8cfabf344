/**
 * `/api/v1/registry` (API.md "Registry"): each route a thin adapter from HTTP to `ConsoleRegistryService`
 * through the shared edge (session, CSRF and Origin on every POST, bounded strict bodies: 256 KiB for a card,
 * answers). Each call carries the person's address as the edge determines it (CONSOLE_TRUSTED_PROXIES), so the
 * registry's per-source limits count each person, not the console as one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { sourceAddress, type TrustedProxies } from '@trustmesh/platform-rate-limits';

import type { ConsoleRegistryService, RequestOrigin } from '../registry/console-registry.service';
import { CONSOLE_HTTP_EDGE, type ConsoleHttpEdge } from './console-http.edge';
import { readListQuery, singleQueryValues } from './list-query';

export const CONSOLE_REGISTRY_DEPS = Symbol.for('trustmesh.console.RegistryDeps');

export interface ConsoleRegistryDeps {
  service: ConsoleRegistryService;
  trustedProxies: TrustedProxies;
}

/** API.md: a card document may be larger than the other bodies. */
export const MAX_CARD_BODY_BYTES = 256 * 1024;
const BASE = '/api/v1/registry';
const SEARCH_PARAMETERS = ['q', 'kind', 'namespace', 'status', 'tag', 'limit', 'cursor'] as const;

@Controller('api/v1/registry')
export class ConsoleRegistryController {
  constructor(
    @Inject(CONSOLE_HTTP_EDGE) private readonly edge: ConsoleHttpEdge,
    @Inject(CONSOLE_REGISTRY_DEPS) private readonly deps: ConsoleRegistryDeps,
  ) {}

  @Get('search')
  search(@Query() query: Record<string, unknown>, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/search`, body: 'none' }, async () => {
      const given = singleQueryValues(query, SEARCH_PARAMETERS);
      if (!given.ok) return given;
      const { limit, cursor, q, kind, namespace, status, tag } = given.value;
      // The registry's cursor is its own (signed, with a `.`): the service checks its shape, this only the limit.
      const page = readListQuery(limit === undefined ? {} : { limit });
      if (!page.ok) return page;
      const filters = Object.fromEntries(Object.entries({ q, kind, namespace, status, tag }).filter(([, value]) => value !== undefined && value !== '')) as Record<string, string>;
      return this.deps.service.search({ ...filters, limit: page.value.limit, cursor: cursor === undefined || cursor === '' ? null : cursor }, this.origin(request));
    });
  }

  /** The identifier is URL-encoded in the path (`did:web:…`, or a name holding `/`); Express hands it over decoded. */
  @Get('cards/:identifier')
  card(@Param('identifier') identifier: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/cards/:identifier`, body: 'none' }, () => this.deps.service.card(identifier, this.origin(request)));
  }

  @Post('cards')
  publish(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/cards`, body: 'required', maxBodyBytes: MAX_CARD_BODY_BYTES }, (account, body) => this.deps.service.publish(account, body, this.origin(request)));
  }

  @Get('namespaces')
  namespaces(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/namespaces`, body: 'none' }, (account) => this.deps.service.namespaces(account, this.origin(request)));
  }

  @Post('namespaces/:namespace/claims')
  startClaim(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/namespaces/:namespace/claims`, body: 'required' }, (account, body) => this.deps.service.startClaim(account, namespace, body, this.origin(request)));
  }

  @Post('namespaces/:namespace/claims/check')
  checkClaim(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/namespaces/:namespace/claims/check`, body: 'optional' }, (account) => this.deps.service.checkClaim(account, namespace, this.origin(request)));
  }

  private origin(request: IncomingMessage): RequestOrigin {
    // 'unknown' (no peer address) is not an address: the service sends only an IP.
    return { clientAddress: sourceAddress(request, this.deps.trustedProxies) };
  }
}
