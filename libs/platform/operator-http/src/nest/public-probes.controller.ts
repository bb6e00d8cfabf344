/**
 * GET /healthz (the process answers) and GET /readyz (database and bus ready) on an app's public NestJS port,
 * where load balancers look for them; the operator port serves copies beside /metrics. Both follow the
 * platform's probe rules (`PublicProbes`): constant cost, and a generous limit per source address on the
 * public port only. An app registers this controller and provides its `PublicProbes` as `PUBLIC_PROBES`
 * (before any catch-all route, so the probes are never mistaken for one).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Req, Res } from '@nestjs/common';

import type { PublicProbes } from '../public-probes';

/** DI token of the public port's probes. */
export const PUBLIC_PROBES = Symbol.for('trustmesh.platform.PublicProbes');

@Controller()
export class PublicProbesController {
  constructor(@Inject(PUBLIC_PROBES) private readonly probes: PublicProbes) {}

  @Get('healthz')
  health(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.probes.answer('healthz', request, response);
  }

  @Get('readyz')
  ready(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.probes.answer('readyz', request, response);
  }
}
