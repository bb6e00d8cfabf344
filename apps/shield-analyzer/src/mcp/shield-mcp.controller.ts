/**
 * `POST /mcp`: the MCP server (shield-mcp.server.ts) behind the shared HTTP edge, for agent tokens with
 * `mcp:access` only (§13); operator credentials get 403. Stateless, so GET (a server-sent stream) and
 * DELETE (ending a session) have nothing to serve: 405.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { All, Controller, Inject, Post, Req, Res } from '@nestjs/common';

import { failWith, SHIELD_HTTP_EDGE, type ShieldHttpEdge } from '../http/shield-http.edge';
import { SHIELD_CASE_SERVICE, type ShieldCaseService } from '../service/shield-case.service';
import { handleMcpRequest } from './shield-mcp.server';

const TEMPLATE = '/mcp';

@Controller('mcp')
export class ShieldMcpController {
  constructor(
    @Inject(SHIELD_CASE_SERVICE) private readonly service: ShieldCaseService,
    @Inject(SHIELD_HTTP_EDGE) private readonly edge: ShieldHttpEdge,
  ) {}

  @Post()
  call(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, TEMPLATE, async () => {
      const admitted = await this.edge.admit(request, response, true, (caller) =>
        caller.kind === 'agent' && caller.scopes.includes('mcp:access') ? null : 'The MCP tools are for agent tokens with the mcp:access scope',
      );
      if (!admitted || admitted.caller.kind !== 'agent') return;
      await handleMcpRequest(this.service, this.edge.options.logger, admitted.caller, request, response, admitted.body);
    });
  }

  @All()
  other(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, TEMPLATE, async () => {
      request.resume();
      failWith(response, 405, 'SHIELD_METHOD_NOT_ALLOWED', 'The MCP endpoint is stateless: POST only');
    });
  }
}
