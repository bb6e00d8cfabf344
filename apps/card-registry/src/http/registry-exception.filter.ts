/**
 * What Nest itself answers before a route runs (no such route, a path segment that is not valid percent-
 * encoding), as the same RFC 7807 problem documents every route answers, with stable codes and never the
 * framework's message (which quotes the request).
 */
import type { ServerResponse } from 'node:http';

import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';

import { problem } from './registry-http.edge';

@Catch()
export class RegistryExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<ServerResponse>();
    if (response.headersSent) return;
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    if (status === 404) problem(response, 404, 'ROUTE_NOT_FOUND', 'No route matches this method and path; see the registry README for its routes');
    else if (status === 400) problem(response, 400, 'PATH_INVALID', 'The path is not valid percent-encoding; URL-encode identifiers as one path segment');
    else if (status < 500) problem(response, status, 'REQUEST_REFUSED', 'The request was refused');
    else problem(response, 500, 'REGISTRY_INTERNAL', 'Internal error');
  }
}
