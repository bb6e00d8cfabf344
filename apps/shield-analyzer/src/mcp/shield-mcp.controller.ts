/**
 * `POST /mcp`: the MCP server (shield-mcp.server.ts) behind the shared HTTP edge. §13: every tool needs
 * `mcp:access` AND an owner-confirmed installation, which here is the operator issuing the token with
 * `mcp: true` (README, "MCP"). Operator credentials, tokens without the scope and tokens whose installation
 * was never confirmed get 403 with a code each, before any MCP message is read. Stateless, so GET (a
 * server-sent stream) and DELETE (ending a session) have nothing to serve: 405.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { All, Controller, Inject, Post, Req, Res } from '@nestjs/common';

import { failWith, SHIELD_HTTP_EDGE, type Refusal, type ShieldHttpEdge } from '../http/shield-http.edge';
import type { ShieldCaller } from '../service/shield-callers';
import { SHIELD_CASE_SERVICE, type ShieldCaseService } from '../service/shield-case.service';
import { handleMcpRequest } from './shield-mcp.server';

const TEMPLATE = '/mcp';

/** Why a caller may not use the MCP tools, or null. */
function mcpRefusal(caller: ShieldCaller): Refusal | null {
  if (caller.kind !== 'agent') return { code: 'SHIELD_MCP_AGENT_ONLY', message: 'The MCP tools are for agent tokens; an operator uses REST or gRPC' };
  if (!caller.scopes.includes('mcp:access')) return { code: 'SHIELD_SCOPE_MISSING', message: 'This agent token lacks the mcp:access scope' };
  if (!caller.mcpInstallationConfirmed) {
    return {
      code: 'SHIELD_MCP_INSTALLATION_NOT_CONFIRMED',
      message: 'The owner has not confirmed an MCP installation for this token: ask the operator to issue one with {"mcp": true} (POST /v0.1/agents/:id/shield-tokens)',
    };
  }
  return null;
}

@Controller('mcp')
export class ShieldMcpController {
  constructor(
    @Inject(SHIELD_CASE_SERVICE) private readonly service: ShieldCaseService,
    @Inject(SHIELD_HTTP_EDGE) private readonly edge: ShieldHttpEdge,
  ) {}

  @Post()
  call(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, TEMPLATE, async () => {
      const admitted = await this.edge.admit(request, response, true, mcpRefusal);
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
