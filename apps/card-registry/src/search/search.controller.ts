/**
 * The public discovery reads (CARDS.md §5, §2): `GET /v1/search`, `GET /v1/changes` and each namespace's
 * AI Catalog at `GET /namespaces/{namespace}/.well-known/ai-catalog.json` (final form; `?form=seed` for the
 * v1 seed form; the form is chosen by the query, not by Accept, since both forms are JSON and caches key on
 * the URL). No credential: these are what anyone may read, like the card reads. Every query string is read
 * whole and bounded before work (search.parameters.ts); refusals are problem documents with stable codes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';

import { problem, REGISTRY_HTTP_EDGE, send, sendFailure, type RegistryHttpEdge } from '../http/registry-http.edge';
import type { CatalogService } from './catalog.service';
import type { ChangesService } from './changes.service';
import { isParameterRefusal, MAX_QUERY_STRING_LENGTH, readChangesQuery, readSearchQuery } from './search.parameters';
import type { SearchService } from './search.service';

export const SEARCH_ROUTES = Symbol.for('trustmesh.card-registry.SearchRoutes');

export interface SearchRoutes {
  search: SearchService;
  changes: ChangesService;
  catalogs: CatalogService;
}

const queryOf = (request: IncomingMessage) => {
  const url = request.url ?? '';
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
};

/** Whether `If-None-Match` names `etag` (weak comparison, as RFC 9110 asks for GET). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined || header.length > MAX_QUERY_STRING_LENGTH) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

@Controller()
export class SearchController {
  constructor(
    @Inject(SEARCH_ROUTES) private readonly routes: SearchRoutes,
    @Inject(REGISTRY_HTTP_EDGE) private readonly edge: RegistryHttpEdge,
  ) {}

  @Get('v1/search')
  search(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/search', async () => {
      const query = readSearchQuery(queryOf(request));
      if (isParameterRefusal(query)) return problem(response, 400, query.code, query.message, query.path);
      this.edge.answer(response, await this.routes.search.search(query));
    });
  }

  @Get('v1/changes')
  changes(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/changes', async () => {
      const query = readChangesQuery(queryOf(request));
      if (isParameterRefusal(query)) return problem(response, 400, query.code, query.message, query.path);
      this.edge.answer(response, await this.routes.changes.changes(query));
    });
  }

  @Get('namespaces/:namespace/.well-known/ai-catalog.json')
  catalog(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/namespaces/:namespace/.well-known/ai-catalog.json', async () => {
      const params = new URLSearchParams(queryOf(request).slice(0, MAX_QUERY_STRING_LENGTH));
      const names = [...new Set(params.keys())];
      if (names.some((name) => name !== 'form')) return problem(response, 400, 'PARAMETER_UNKNOWN', 'Unknown query parameter; allowed: form', '');
      const forms = params.getAll('form');
      if (forms.length > 1) return problem(response, 400, 'PARAMETER_REPEATED', 'form may be given once', '/form');
      const form = forms[0] ?? 'final';
      if (form !== 'final' && form !== 'seed') return problem(response, 400, 'PARAMETER_INVALID', 'form must be final or seed', '/form');
      const result = await this.routes.catalogs.catalog(namespace, form);
      if (!result.ok) return sendFailure(response, result.failure);
      const { etag, contentType, bytes } = result.value;
      // The catalog changes with every publish or yank under the namespace: caches revalidate by ETag.
      response.setHeader('Cache-Control', 'no-cache');
      response.setHeader('ETag', etag);
      if (matches(request.headers['if-none-match'], etag)) {
        response.writeHead(304);
        response.end();
        return;
      }
      send(response, 200, contentType, bytes);
    });
  }
}
