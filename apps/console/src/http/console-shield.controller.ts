/**
 * `/api/v1/shield` (API.md "Shield"): each route a thin adapter from HTTP to `ConsoleShieldService` through the
 * shared edge (session, CSRF and Origin on every POST, bounded strict bodies, answers). The service acts for the
 * signed-in account (`console:<accountId>` at the Shield), so nothing here decides who sees what. A consult's
 * message, like every body, goes to the Shield and nowhere else: the edge logs route templates, never bodies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';

import type { ConsoleShieldService } from '../shield/console-shield.service';
import { CONSOLE_HTTP_EDGE, type ConsoleHttpEdge } from './console-http.edge';
import { readListQuery, singleQueryValues } from './list-query';

export const CONSOLE_SHIELD_SERVICE = Symbol.for('trustmesh.console.ShieldService');

const BASE = '/api/v1/shield';
/** Anything under it, an unmatched path with a raw `/` in the reference included. */
const COUNTERPARTY_PATH = /^\/api\/v1\/shield\/counterparties\//;

/**
 * The path the framework's request line shows: a counterparty reference (a person's name, address or number)
 * is the account's data, so that route is logged as its template like every line the edge writes.
 */
export const loggedShieldPath = (path: string): string => (COUNTERPARTY_PATH.test(path) ? `${BASE}/counterparties/:reference` : path);

@Controller('api/v1/shield')
export class ConsoleShieldController {
  constructor(
    @Inject(CONSOLE_HTTP_EDGE) private readonly edge: ConsoleHttpEdge,
    @Inject(CONSOLE_SHIELD_SERVICE) private readonly service: ConsoleShieldService,
  ) {}

  @Get('cases')
  list(@Query() query: Record<string, unknown>, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/cases`, body: 'none' }, async (account) => {
      const given = singleQueryValues(query, ['status', 'limit', 'cursor'] as const);
      if (!given.ok) return given;
      const { status, ...page } = given.value;
      const list = readListQuery(page);
      return list.ok ? this.service.listCases(account, status, list.value) : list;
    });
  }

  @Post('cases')
  open(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/cases`, body: 'required' }, (account, body) => this.service.openCase(account, body));
  }

  @Get('cases/:caseId')
  get(@Param('caseId') caseId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/cases/:caseId`, body: 'none' }, (account) => this.service.getCase(account, caseId));
  }

  @Post('cases/:caseId/consultations')
  consult(@Param('caseId') caseId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/cases/:caseId/consultations`, body: 'required' }, (account, body) => this.service.consult(account, caseId, body));
  }

  @Post('cases/:caseId/guidance')
  guidance(@Param('caseId') caseId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/cases/:caseId/guidance`, body: 'required' }, (account, body) => this.service.addGuidance(account, caseId, body));
  }

  @Post('cases/:caseId/close')
  close(@Param('caseId') caseId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/cases/:caseId/close`, body: 'required' }, (account, body) => this.service.closeCase(account, caseId, body));
  }

  /** The reference is URL-encoded in the path (it may hold `/` or `@`); Express hands it over decoded. */
  @Get('counterparties/:reference')
  counterparty(@Param('reference') reference: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/counterparties/:reference`, body: 'none' }, (account) => this.service.counterparty(account, reference));
  }
}
