/**
 * The gateway's HTTP(S) server from the first moment of a start, before the database, the bus and the
 * consumers are ready: a restarting replica must answer its orchestrator's liveness probe at once (on
 * Kafka a consumer group join takes tens of seconds), and a load balancer must see "not ready", not a dead
 * port, so it neither restarts the process nor sends it traffic.
 *
 * While the gateway starts, this server answers:
 * - `GET /healthz` 200 `{"status":"ok"}` (the process is alive);
 * - `GET /readyz` 503 `{"status":"not-ready","checks":{"startup":"<step>"}}`, the step it waits for
 *   (`database`, `event-bus`, `http`, `grpc`, ...): a stable word, never internal error text;
 * - every other request 503 `{"error":"GATEWAY_STARTING"}` with `Retry-After`, and WebSocket upgrades an HTTP
 *   503 before any upgrade, so a Companion or browser backs off and retries.
 * Once Nest is built, `adopt()` hands the same listening server to it (see `AdoptingExpressAdapter`) and
 * `serve(handler)` switches requests to the app when the start is complete; the port never closes in between.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

import { ExpressAdapter } from '@nestjs/platform-express';

import { securityHeaderLines } from '../http/security-headers';

export type StartupStep = 'database' | 'event-bus' | 'consumers' | 'http' | 'presence' | 'grpc';

type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

const RETRY_AFTER_SECONDS = '5';

export class StartupProbeServer {
  readonly server: Server;
  private step: StartupStep = 'database';
  private readonly starting: RequestHandler = (request, response) => this.answerWhileStarting(request, response);
  private handler: RequestHandler = this.starting;
  private readonly refuseUpgrade = (_request: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify({ error: 'GATEWAY_STARTING' });
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: ${RETRY_AFTER_SECONDS}\r\n${securityHeaderLines(this.headers)}Connection: close\r\n\r\n${body}`,
    );
  };

  /** `headers`: the gateway's security headers, on every answer given while starting. */
  constructor(
    tls: { cert: string; key: string } | null,
    private readonly headers: Readonly<Record<string, string>> = {},
  ) {
    const dispatch = (request: IncomingMessage, response: ServerResponse) => {
      if (this.handler !== this.starting) return this.handler(request, response);
      for (const [name, value] of Object.entries(this.headers)) response.setHeader(name, value);
      this.starting(request, response);
    };
    this.server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, dispatch) : createHttpServer(dispatch);
    // Bounded request time (the spec's redeem timeout is 30 s on the client side) against slow senders; an
    // upgraded WebSocket is no longer a request and is not affected.
    this.server.requestTimeout = 30_000;
    this.server.headersTimeout = 20_000;
    this.server.on('upgrade', this.refuseUpgrade);
  }

  /** Listens on `host:port` (port 0 = any free port) and resolves with the bound address. */
  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  /** What the start waits for now (reported by `/readyz`). */
  waitingFor(step: StartupStep): void {
    this.step = step;
  }

  /** The Nest adapter that takes this listening server instead of creating one. */
  adopt(): ExpressAdapter {
    // Upgrades go to the data plane from its attach (during Nest's init) on: the refusal must be gone by then.
    this.server.off('upgrade', this.refuseUpgrade);
    return new AdoptingExpressAdapter(this.server);
  }

  /** From now on requests go to the app. */
  serve(handler: RequestHandler): void {
    this.handler = handler;
  }

  /** Closes the server when the start failed before Nest owned it. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections?.();
      this.server.close(() => resolve());
    });
  }

  private answerWhileStarting(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && path === '/healthz') return send(response, 200, { status: 'ok' });
    if (request.method === 'GET' && path === '/readyz') return send(response, 503, { status: 'not-ready', checks: { startup: this.step } }, true);
    // Whatever body the request carries is not read: the connection closes after the answer.
    response.setHeader('Connection', 'close');
    send(response, 503, { error: 'GATEWAY_STARTING', message: 'The relay gateway is starting; retry shortly.' }, true);
  }
}

function send(response: ServerResponse, status: number, body: unknown, retry = false): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
    ...(retry ? { 'Retry-After': RETRY_AFTER_SECONDS } : {}),
  });
  response.end(text);
}

/** Nest's Express adapter on a server that already listens (`app.init()`, never `app.listen()`). */
class AdoptingExpressAdapter extends ExpressAdapter {
  constructor(private readonly adopted: Server) {
    super();
  }

  override initHttpServer(): void {
    this.httpServer = this.adopted;
  }
}
