/**
 * `/api/v1/workspaces` (API.md "Workspaces"): each route a thin adapter from HTTP to
 * `ConsoleWorkspacesService` through the shared edge (session, CSRF, Origin, bounded bodies, answers).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';

import type { ConsoleResult } from '../console-result';
import type { ConsoleWorkspacesService } from '../workspaces/console-workspaces.service';
import { CONSOLE_HTTP_EDGE, type ConsoleHttpEdge } from './console-http.edge';
import { readListQuery, singleQueryValues, type ListQuery } from './list-query';

export const CONSOLE_WORKSPACES_SERVICE = Symbol.for('trustmesh.console.WorkspacesService');

type ListParams = Record<string, unknown>;
const BASE = '/api/v1/workspaces';

@Controller('api/v1/workspaces')
export class ConsoleWorkspacesController {
  constructor(
    @Inject(CONSOLE_HTTP_EDGE) private readonly edge: ConsoleHttpEdge,
    @Inject(CONSOLE_WORKSPACES_SERVICE) private readonly service: ConsoleWorkspacesService,
  ) {}

  @Get()
  list(@Query() query: ListParams, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: BASE, body: 'none' }, async (account) => {
      const list = listOf(query);
      return list.ok ? this.service.list(account, list.value) : list;
    });
  }

  @Post()
  create(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: BASE, body: 'required' }, (account, body) => this.service.create(account, body));
  }

  @Get(':workspaceId')
  get(@Param('workspaceId') workspaceId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/:workspaceId`, body: 'none' }, (account) => this.service.get(account, workspaceId));
  }

  @Post(':workspaceId/pairing-codes')
  pairingCode(@Param('workspaceId') workspaceId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/:workspaceId/pairing-codes`, body: 'optional' }, (account) => this.service.createPairingCode(account, workspaceId));
  }

  @Get(':workspaceId/devices')
  devices(@Param('workspaceId') workspaceId: string, @Query() query: ListParams, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/:workspaceId/devices`, body: 'none' }, async (account) => {
      const list = listOf(query);
      return list.ok ? this.service.listDevices(account, workspaceId, list.value) : list;
    });
  }

  @Post(':workspaceId/devices/:deviceId/revoke')
  revoke(@Param('workspaceId') workspaceId: string, @Param('deviceId') deviceId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/:workspaceId/devices/:deviceId/revoke`, body: 'optional' }, (account, body) =>
      this.service.revokeDevice(account, workspaceId, deviceId, body),
    );
  }

  @Post(':workspaceId/session-descriptors')
  descriptor(@Param('workspaceId') workspaceId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/:workspaceId/session-descriptors`, body: 'optional' }, (account) => this.service.createSessionDescriptor(account, workspaceId));
  }

  @Get(':workspaceId/audit')
  audit(@Param('workspaceId') workspaceId: string, @Query() query: ListParams, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/:workspaceId/audit`, body: 'none' }, async (account) => {
      const list = listOf(query);
      return list.ok ? this.service.audit(account, workspaceId, list.value) : list;
    });
  }
}

/** `?limit=` and `?cursor=`, each given at most once. */
function listOf(query: ListParams): ConsoleResult<ListQuery> {
  const given = singleQueryValues(query, ['limit', 'cursor'] as const);
  return given.ok ? readListQuery(given.value) : given;
}
