/**
 * GET /healthz (the process answers) and GET /readyz (database and bus ready) on the console's own port, as
 * the other apps serve them; the operator port serves copies beside /metrics. Registered before the page's
 * catch-all so they are never mistaken for client routes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { PublicProbes } from '@trustmesh/platform-operator-http';

export const CONSOLE_PROBES = Symbol.for('trustmesh.console.PublicProbes');

@Controller()
export class ConsoleHealthController {
  constructor(@Inject(CONSOLE_PROBES) private readonly probes: PublicProbes) {}

  @Get('healthz')
  health(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.probes.answer('healthz', request, response);
  }

  @Get('readyz')
  ready(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.probes.answer('readyz', request, response);
  }
}
