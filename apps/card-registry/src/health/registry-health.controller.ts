/**
 * GET /healthz (the process answers) and GET /readyz (database and bus ready) on the data port, where load
 * balancers look for them; the operator port serves copies beside /metrics. Both follow the platform's probe
 * rules (`PublicProbes`): constant cost, and a generous limit per source address on this public port only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { PublicProbes } from '@trustmesh/platform-operator-http';

import { REGISTRY_PROBES } from '../card-registry.tokens';

@Controller()
export class RegistryHealthController {
  constructor(@Inject(REGISTRY_PROBES) private readonly probes: PublicProbes) {}

  @Get('healthz')
  health(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.probes.answer('healthz', request, response);
  }

  @Get('readyz')
  ready(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.probes.answer('readyz', request, response);
  }
}
