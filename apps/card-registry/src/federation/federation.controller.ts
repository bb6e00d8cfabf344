/**
 * The operator's federation routes under `/v1/operator/sources` (operator bearer credential; README.md
 * "Federation"): add a source (`{url, intervalSeconds?}`), list them, read one, remove one, and crawl one now (the
 * crawl's summary). Bodies are read through the shared edge (bounded, strict JSON).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Delete, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';

import { REGISTRY_HTTP_EDGE, send, sendFailure, type RegistryHttpEdge } from '../http/registry-http.edge';
import type { FederationService } from './federation.service';

export const FEDERATION_SERVICE = Symbol.for('trustmesh.card-registry.FederationService');

@Controller('v1/operator/sources')
export class FederationController {
  constructor(
    @Inject(FEDERATION_SERVICE) private readonly federation: FederationService,
    @Inject(REGISTRY_HTTP_EDGE) private readonly edge: RegistryHttpEdge,
  ) {}


  @Post()
  add(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/sources', true, (value: { created: boolean }) => (value.created ? 201 : 200), (caller, body) => this.federation.addSource(caller, body));
  }

  @Get()
  list(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/sources', false, 200, (caller) => this.federation.listSources(caller));
  }

  @Get(':sourceId')
  get(@Param('sourceId') sourceId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/sources/:sourceId', false, 200, (caller) => this.federation.getSource(caller, sourceId));
  }

  @Delete(':sourceId')
  remove(@Param('sourceId') sourceId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/sources/:sourceId', false, 200, (caller) => this.federation.removeSource(caller, sourceId));
  }

  @Post(':sourceId/crawl')
  crawl(@Param('sourceId') sourceId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/sources/:sourceId/crawl', false, 200, (caller) => this.federation.crawlNow(caller, sourceId));
  }
}

/** The media type a remote record is served with: cards and catalogs by kind; anything else as opaque bytes. */
const REMOTE_CONTENT_TYPES: Readonly<Record<string, string>> = {
  'ai-card': 'application/json',
  a2a: 'application/a2a-agent-card+json',
  'mcp-server': 'application/json',
  'ai-catalog': 'application/ai-catalog+json',
};

/**
 * `GET /v1/cards/{identifier}/remote/{sourceId}/{revisionKey}`: the exact bytes a source served (no credential), as
 * listed by `?origin=remote`. Artifacts go out as `application/octet-stream` attachments: a source never chooses the
 * media type this registry serves under its own origin.
 */
@Controller('v1/cards')
export class RemoteCardsController {
  constructor(
    @Inject(FEDERATION_SERVICE) private readonly federation: FederationService,
    @Inject(REGISTRY_HTTP_EDGE) private readonly edge: RegistryHttpEdge,
  ) {}

  @Get(':identifier/remote/:sourceId/:revisionKey')
  bytes(@Param('identifier') identifier: string, @Param('sourceId') sourceId: string, @Param('revisionKey') revisionKey: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/cards/:identifier/remote/:sourceId/:revisionKey', async () => {
      const result = await this.federation.remoteBytes(identifier, sourceId, revisionKey);
      if (!result.ok) return sendFailure(response, result.failure);
      const { kind, digest, status, sourceUrl, bytes } = result.value;
      const contentType = REMOTE_CONTENT_TYPES[kind];
      if (contentType === undefined) response.setHeader('Content-Disposition', 'attachment');
      response.setHeader('ETag', `"${digest}"`);
      response.setHeader('X-Card-Origin', 'remote');
      response.setHeader('X-Card-Status', status);
      response.setHeader('X-Card-Source', encodeURI(sourceUrl));
      send(response, 200, contentType ?? 'application/octet-stream', bytes);
    });
  }
}

/**
 * `GET /v1/cards/{identifier}?origin=local|remote`: local (the default) is the registry's own card and always wins;
 * remote lists what federation sources said about the identifier, with provenance. Null: an invalid origin.
 */
export function originOf(request: IncomingMessage): 'local' | 'remote' | null {
  const values = new URL(request.url ?? '/', 'http://registry.invalid').searchParams.getAll('origin');
  if (values.length === 0) return 'local';
  if (values.length > 1) return null;
  return values[0] === 'local' || values[0] === 'remote' ? values[0] : null;
}
