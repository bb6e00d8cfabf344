/**
 * The publisher API and the public reads under `/v1/cards` (CARDS.md §5): publish (raw document bytes,
 * `?dryRun=true`, `?kind=`, `?identifier=`), lifecycle (status, rename), and the reads: latest revision
 * (308 to a renamed card's new identifier, 410 with the tombstone of a deleted one), every revision with
 * its status, and the exact stored bytes of one revision with `ETag`, `Digest` and `Repr-Digest`.
 * Identifiers travel URL-encoded in one path segment.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';

import { CARD_SERVICE } from '../card-registry.tokens';
import { FEDERATION_SERVICE, originOf } from '../federation/federation.controller';
import type { FederationService } from '../federation/federation.service';
import type { CardService, PublishQuery } from '../service/card.service';
import { problem, REFUSED, REGISTRY_HTTP_EDGE, send, sendFailure, sendJson, type RegistryHttpEdge } from './registry-http.edge';

const PUBLISH_PARAMETERS = new Set(['dryRun', 'kind', 'identifier']);

/** The publish query, or a refusal naming the parameter. */
function publishQuery(request: IncomingMessage): PublishQuery | { code: string; message: string; path: string } {
  const params = new URL(request.url ?? '/', 'http://registry.invalid').searchParams;
  for (const name of new Set(params.keys())) {
    if (!PUBLISH_PARAMETERS.has(name)) return { code: 'PARAMETER_UNKNOWN', message: 'Unknown query parameter; allowed: dryRun, kind, identifier', path: '' };
    if (params.getAll(name).length > 1) return { code: 'PARAMETER_REPEATED', message: `${name} may be given once`, path: `/${name}` };
  }
  const dryRun = params.get('dryRun');
  if (dryRun !== null && dryRun !== 'true' && dryRun !== 'false') return { code: 'PARAMETER_INVALID', message: 'dryRun must be true or false', path: '/dryRun' };
  const kind = params.get('kind');
  const identifier = params.get('identifier');
  return { dryRun: dryRun === 'true', ...(kind !== null ? { kind } : {}), ...(identifier !== null ? { identifier } : {}) };
}

@Controller('v1/cards')
export class CardsController {
  constructor(
    @Inject(CARD_SERVICE) private readonly cards: CardService,
    @Inject(REGISTRY_HTTP_EDGE) private readonly edge: RegistryHttpEdge,
    @Inject(FEDERATION_SERVICE) private readonly federation: FederationService,
  ) {}

  @Post()
  publish(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/cards', async () => {
      const caller = await this.edge.caller(request, response);
      if (caller === REFUSED) return;
      const query = publishQuery(request);
      if ('code' in query) {
        request.resume();
        return problem(response, 400, query.code, query.message, query.path);
      }
      const bytes = await this.edge.cardBytes(request, response);
      if (bytes === REFUSED) return;
      this.edge.answer(response, await this.cards.publish(caller, bytes, query), (value) => (value.created ? 201 : 200));
    });
  }

  @Post(':identifier/status')
  status(@Param('identifier') identifier: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/cards/:identifier/status', async () => {
      const caller = await this.edge.caller(request, response);
      if (caller === REFUSED) return;
      const body = await this.edge.jsonBody(request, response);
      if (body === REFUSED) return;
      this.edge.answer(response, await this.cards.changeStatus(caller, identifier, body));
    });
  }

  @Post(':identifier/rename')
  rename(@Param('identifier') identifier: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/cards/:identifier/rename', async () => {
      const caller = await this.edge.caller(request, response);
      if (caller === REFUSED) return;
      const body = await this.edge.jsonBody(request, response);
      if (body === REFUSED) return;
      this.edge.answer(response, await this.cards.rename(caller, identifier, body));
    });
  }

  @Get(':identifier')
  latest(@Param('identifier') identifier: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/cards/:identifier', async () => {
      const origin = originOf(request);
      if (origin === null) return problem(response, 400, 'PARAMETER_INVALID', 'origin must be local or remote, given once', '/origin');
      // Remote copies are listed apart: they never answer for a local card (README.md "Federation").
      if (origin === 'remote') return this.edge.answer(response, await this.federation.remoteCopies(identifier));
      const result = await this.cards.latest(identifier);
      if (!result.ok) return sendFailure(response, result.failure);
      if (result.value.kind === 'redirect') {
        response.setHeader('Location', `/v1/cards/${encodeURIComponent(result.value.location)}`);
        return sendJson(response, 308, result.value.body);
      }
      sendJson(response, 200, result.value.body);
    });
  }

  @Get(':identifier/revisions')
  revisions(@Param('identifier') identifier: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/cards/:identifier/revisions', async () => {
      this.edge.answer(response, await this.cards.revisions(identifier));
    });
  }

  @Get(':identifier/revisions/:revision')
  revision(@Param('identifier') identifier: string, @Param('revision') revision: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/cards/:identifier/revisions/:revision', async () => {
      const result = await this.cards.revisionBytes(identifier, revision);
      if (!result.ok) return sendFailure(response, result.failure);
      const { digest, bytes, contentType, status } = result.value;
      const base64 = Buffer.from(digest.slice('sha256:'.length), 'hex').toString('base64');
      const etag = `"${digest}"`;
      // The bytes never change; the status may (a yank), so caches revalidate.
      response.setHeader('Cache-Control', 'no-cache');
      response.setHeader('ETag', etag);
      response.setHeader('Repr-Digest', `sha-256=:${base64}:`);
      response.setHeader('Digest', `sha-256=${base64}`);
      response.setHeader('X-Card-Status', status);
      if (request.headers['if-none-match'] === etag) {
        response.writeHead(304);
        response.end();
        return;
      }
      send(response, 200, contentType, bytes);
    });
  }
}
