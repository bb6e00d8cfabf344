/**
 * What Nest itself answers before a route runs (no such route, a path segment that is not valid percent-encoding),
 * as the same `{ error, issues }` every Shield route answers, with stable codes and never the framework's message,
 * which quotes the request's path (§12: nothing a caller sent is echoed). The registry does the same
 * (registry-exception.filter.ts).
 */
import type { ServerResponse } from 'node:http';

import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';

import { failWith } from './shield-http.edge';

@Catch()
export class ShieldExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<ServerResponse>();
    if (response.headersSent) return;
    response.setHeader('Cache-Control', 'no-store');
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    if (status === 404) failWith(response, 404, 'SHIELD_ROUTE_NOT_FOUND', 'No route matches this method and path; see the Shield README for its routes');
    else if (status === 400) failWith(response, 400, 'SHIELD_PATH_INVALID', 'The path is not valid percent-encoding; URL-encode identifiers and references as one path segment');
    else if (status < 500) failWith(response, status, 'SHIELD_REQUEST_REFUSED', 'The request was refused');
    else failWith(response, 500, 'SHIELD_INTERNAL', 'Internal error');
  }
}
