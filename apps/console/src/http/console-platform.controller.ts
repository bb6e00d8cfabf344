/**
 * `/api/v1/platform` (API.md "Platform"): each app's readiness and the live series the page charts, for any
 * signed-in person (they show the platform's state, never an account's data). The service bounds every scrape
 * and reuses an answer for a second, so pages polling every 2 s cost the apps little.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Req, Res } from '@nestjs/common';

import type { ConsolePlatformService } from '../platform/console-platform.service';
import { CONSOLE_HTTP_EDGE, type ConsoleHttpEdge } from './console-http.edge';

export const CONSOLE_PLATFORM_SERVICE = Symbol.for('trustmesh.console.PlatformService');

const BASE = '/api/v1/platform';

@Controller('api/v1/platform')
export class ConsolePlatformController {
  constructor(
    @Inject(CONSOLE_HTTP_EDGE) private readonly edge: ConsoleHttpEdge,
    @Inject(CONSOLE_PLATFORM_SERVICE) private readonly service: ConsolePlatformService,
  ) {}

  @Get('health')
  health(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/health`, body: 'none' }, () => this.service.health());
  }

  @Get('metrics')
  metrics(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: `${BASE}/metrics`, body: 'none' }, () => this.service.metrics());
  }
}
