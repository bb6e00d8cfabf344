/**
 * AI Catalogs over HTTP (README.md "AI Catalogs"; CARDS.md §2):
 *
 * - `POST /v1/catalogs[?dryRun=true]` (publisher): the raw seed or final catalog (`application/json` or
 *   `application/ai-catalog+json`, at most REGISTRY_MAX_CARD_BYTES); 201 when something was stored, 200 for
 *   the same bytes again or a dry run;
 * - `GET /v1/namespaces/{ns}/catalogs` (public): the catalog publishes recorded in a namespace;
 * - `GET /v1/namespaces/{ns}/catalogs/{catalogId}` (public): what one publish stored there.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';

import { CATALOG_PUBLISH_SERVICE } from '../card-registry.tokens';
import type { CatalogPublishService } from '../catalogs/catalog-publish.service';
import { problem, REFUSED, REGISTRY_HTTP_EDGE, type RegistryHttpEdge } from './registry-http.edge';

/** `?dryRun=` (the only parameter), or a refusal naming the parameter. */
function catalogQuery(request: IncomingMessage): { dryRun: boolean } | { code: string; message: string; path: string } {
  const params = new URL(request.url ?? '/', 'http://registry.invalid').searchParams;
  for (const name of new Set(params.keys())) {
    if (name !== 'dryRun') return { code: 'PARAMETER_UNKNOWN', message: 'Unknown query parameter; allowed: dryRun', path: '' };
    if (params.getAll(name).length > 1) return { code: 'PARAMETER_REPEATED', message: `${name} may be given once`, path: `/${name}` };
  }
  const dryRun = params.get('dryRun');
  if (dryRun !== null && dryRun !== 'true' && dryRun !== 'false') return { code: 'PARAMETER_INVALID', message: 'dryRun must be true or false', path: '/dryRun' };
  return { dryRun: dryRun === 'true' };
}

@Controller('v1')
export class CatalogPublishController {
  constructor(
    @Inject(CATALOG_PUBLISH_SERVICE) private readonly catalogPublish: CatalogPublishService,
    @Inject(REGISTRY_HTTP_EDGE) private readonly edge: RegistryHttpEdge,
  ) {}

  @Post('catalogs')
  publish(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/catalogs', async () => {
      const caller = await this.edge.caller(request, response);
      if (caller === REFUSED) return;
      const query = catalogQuery(request);
      if ('code' in query) {
        request.resume();
        return problem(response, 400, query.code, query.message, query.path);
      }
      const bytes = await this.edge.cardBytes(request, response);
      if (bytes === REFUSED) return;
      this.edge.answer(response, await this.catalogPublish.publish(caller, bytes, query), (value) => (value.created ? 201 : 200));
    });
  }

  @Get('namespaces/:namespace/catalogs')
  list(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/namespaces/:namespace/catalogs', async () => {
      this.edge.answer(response, await this.catalogPublish.list(namespace));
    });
  }

  @Get('namespaces/:namespace/catalogs/:catalogId')
  record(@Param('namespace') namespace: string, @Param('catalogId') catalogId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/namespaces/:namespace/catalogs/:catalogId', async () => {
      this.edge.answer(response, await this.catalogPublish.record(namespace, catalogId));
    });
  }
}
