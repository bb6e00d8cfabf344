/**
 * REST `/v0.1` of SHIELD.md §13: the case routes, the owner's counterparty history and agent tokens (issue, list, revoke), each a thin adapter from HTTP to the
 * application service through the shared edge (authentication, bounded bodies, refusals, request logs).
 * Bodies are read by the edge, never by a framework parser (§12: no body may reach a log or error page).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Delete, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';

import { SHIELD_CASE_SERVICE, type ShieldCaseService } from '../service/shield-case.service';
import { SHIELD_HTTP_EDGE, type ShieldHttpEdge } from './shield-http.edge';

@Controller('v0.1')
export class ShieldCasesController {
  constructor(
    @Inject(SHIELD_CASE_SERVICE) private readonly service: ShieldCaseService,
    @Inject(SHIELD_HTTP_EDGE) private readonly edge: ShieldHttpEdge,
  ) {}

  @Get('shield/cases')
  list(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/shield/cases', takesBody: false }, 200, (caller) => this.service.list(caller));
  }

  @Post('shield/cases')
  open(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/shield/cases', takesBody: true }, 201, (caller, body) => this.service.open(caller, body));
  }

  @Get('shield/cases/:id')
  get(@Param('id') id: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/shield/cases/:id', takesBody: false }, 200, (caller) => this.service.get(caller, id));
  }

  @Post('shield/cases/:id/consult')
  consult(@Param('id') id: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/shield/cases/:id/consult', takesBody: true }, 200, (caller, body) => this.service.consult(caller, id, body));
  }

  @Post('shield/cases/:id/guidance')
  addGuidance(@Param('id') id: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/shield/cases/:id/guidance', takesBody: true }, 200, (caller, body) => this.service.addGuidance(caller, id, body));
  }

  @Post('shield/cases/:id/close')
  close(@Param('id') id: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/shield/cases/:id/close', takesBody: true }, 200, (caller, body) => this.service.close(caller, id, body));
  }

  /** `?limit=` 1-100 (default 25); the reference is one URL-encoded path segment. */
  @Get('shield/counterparties/:reference')
  counterparty(@Param('reference') reference: string, @Query('limit') limit: unknown, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/shield/counterparties/:reference', takesBody: false }, 200, async (caller) => {
      // One decimal of at most 3 digits, else a value the service refuses by its range (0 is the default there, so not here).
      const parsed = limit === undefined ? 0 : typeof limit === 'string' && /^[0-9]{1,3}$/.test(limit) && limit !== '0' ? Number(limit) : -1;
      return this.service.counterparty(caller, reference, parsed);
    });
  }

  @Post('agents/:id/shield-tokens')
  issueAgentToken(@Param('id') agentId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/agents/:id/shield-tokens', takesBody: true }, 201, (caller, body) => this.service.issueAgentToken(caller, agentId, body));
  }

  @Get('agents/:id/shield-tokens')
  listAgentTokens(@Param('id') agentId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/agents/:id/shield-tokens', takesBody: false }, 200, (caller) => this.service.listAgentTokens(caller, agentId));
  }

  @Delete('agents/:id/shield-tokens/:tokenId')
  revokeAgentToken(@Param('id') agentId: string, @Param('tokenId') tokenId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.run(request, response, { template: '/v0.1/agents/:id/shield-tokens/:tokenId', takesBody: false }, 200, (caller) => this.service.revokeAgentToken(caller, agentId, tokenId));
  }
}
