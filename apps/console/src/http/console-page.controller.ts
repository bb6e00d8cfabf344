/**
 * The catch-all routes, registered after every API route: any other `/api` path answers 404
 * CONSOLE_NOT_FOUND in the API's error shape; a GET of any other path serves the page (console-page.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { All, Controller, Get, Inject, Req, Res } from '@nestjs/common';

import { CONSOLE_HTTP_EDGE, type ConsoleHttpEdge } from './console-http.edge';
import type { ConsolePage } from './console-page';

export const CONSOLE_PAGE = Symbol.for('trustmesh.console.Page');

@Controller()
export class ConsolePageController {
  constructor(
    @Inject(CONSOLE_HTTP_EDGE) private readonly edge: ConsoleHttpEdge,
    @Inject(CONSOLE_PAGE) private readonly page: ConsolePage,
  ) {}

  @All(['api', 'api/{*rest}'])
  unknownApi(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.unknownRoute(request, response);
  }

  @Get('{*path}')
  servePage(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.page.serve(request, response);
  }
}
