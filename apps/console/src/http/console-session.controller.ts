/**
 * `/api/v1/session` (API.md "Authentication and CSRF"): who is signed in, signing in, signing out. Thin: the
 * edge applies the Origin rule and reads the body, `ConsoleSignIn` decides, this sets and clears the cookie.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { sourceAddress, type TrustedProxies } from '@trustmesh/platform-rate-limits';

import type { ConsoleMetrics } from '../health/console-metrics';
import { clearedSessionCookie, cookieValue, sessionCookie, sessionIdFromCookie, type ConsoleSessions } from '../session/console-sessions';
import type { ConsoleSignIn } from '../session/console-sign-in.service';
import { DEVICE_COOKIE, deviceCookie } from '../session/console-trusted-devices';
import { CONSOLE_HTTP_EDGE, fail, send, type ConsoleHttpEdge } from './console-http.edge';

export const CONSOLE_SESSION_DEPS = Symbol.for('trustmesh.console.SessionDeps');

export interface ConsoleSessionDeps {
  signIn: ConsoleSignIn;
  sessions: ConsoleSessions;
  trustedProxies: TrustedProxies;
  /** Whether the console's origin is https: (the cookie is then Secure). */
  secureCookie: () => boolean;
  metrics: ConsoleMetrics;
}

const ROUTE = '/api/v1/session';

@Controller('api/v1/session')
export class ConsoleSessionController {
  constructor(
    @Inject(CONSOLE_HTTP_EDGE) private readonly edge: ConsoleHttpEdge,
    @Inject(CONSOLE_SESSION_DEPS) private readonly deps: ConsoleSessionDeps,
  ) {}

  @Get()
  current(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.open(request, response, { template: ROUTE, body: 'none' }, async ({ sessionId }) => {
      const session = await this.deps.sessions.resolve(sessionId);
      if (!session) return fail(response, 401, { code: 'CONSOLE_SIGNED_OUT', message: 'Sign in to continue' });
      send(response, 200, { account: session.account, csrfToken: session.csrfToken });
    });
  }

  @Post()
  signIn(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.open(request, response, { template: ROUTE, body: 'required' }, async ({ body }) => {
      const result = await this.deps.signIn.signIn(body, sourceAddress(request, this.deps.trustedProxies), cookieValue(request.headers.cookie, DEVICE_COOKIE));
      if (!result.ok) {
        if (result.status === 429) {
          this.deps.metrics.signIn('rate_limited');
          response.setHeader('Retry-After', String(result.retryAfterSeconds ?? 60));
        } else if (result.status === 401) this.deps.metrics.signIn('failed');
        return fail(response, result.status, result.error);
      }
      this.deps.metrics.signIn('signed_in');
      const { account, session, device } = result.value;
      const secure = this.deps.secureCookie();
      response.setHeader('Set-Cookie', [sessionCookie(session.sessionId, secure), ...(device ? [deviceCookie(device.token, secure)] : [])]);
      send(response, 200, { account, csrfToken: session.csrfToken });
    });
  }

  /** Signing out needs the session and its CSRF token like any change; it ends the session and clears the cookie. */
  @Delete()
  signOut(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.signedIn(request, response, { template: ROUTE, body: 'none' }, async () => {
      await this.deps.sessions.end(sessionIdFromCookie(request.headers.cookie));
      response.setHeader('Set-Cookie', clearedSessionCookie(this.deps.secureCookie()));
      return { ok: true, status: 204, value: null };
    });
  }
}

