/**
 * GET /healthz (the process answers) and GET /readyz (database and bus ready) on the data port, where load
 * balancers look for them; the operator port serves copies beside /metrics. Both follow the platform's probe
 * rules (`PublicProbes`): constant cost, and a generous limit per source address on this public port only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { PublicProbes } from '@trustmesh/platform-operator-http';

/** DI token of the public port's probes. */
export const SHIELD_PROBES = Symbol.for('trustmesh.shield-analyzer.PublicProbes');

@Controller()
export class ShieldHealthController {
  constructor(@Inject(SHIELD_PROBES) private readonly probes: PublicProbes) {}

  @Get('healthz')
  health(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.probes.answer('healthz', request, response);
  }

  @Get('readyz')
  ready(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.probes.answer('readyz', request, response);
  }
}
