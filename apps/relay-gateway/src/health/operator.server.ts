/**
 * The operator port (RELAY_OPERATOR_HOST / RELAY_OPERATOR_PORT, loopback by default): GET /metrics
 * (Prometheus text) and copies of GET /healthz and GET /readyz, on a plain HTTP listener of its own.
 *
 * Why a port rather than a bearer on the data port: metrics name every rejection code and connection count,
 * which is reconnaissance for anyone on the internet, and a scraper credential would be one more secret to
 * rotate. A port that is not published (loopback, or a pod-internal interface the operator names) keeps
 * them off the public listener with nothing to leak. The probes stay on the data port too, where load
 * balancers look for them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { RelayInfrastructure } from '../persistence/relay-infrastructure';
import { readiness, send } from './health.controller';

export interface OperatorServerDeps {
  metricsText: () => string;
  infrastructure: RelayInfrastructure;
  headers: Readonly<Record<string, string>>;
}

export class OperatorServer {
  private readonly server: Server;

  constructor(private readonly deps: OperatorServerDeps) {
    this.server = createServer((request, response) => {
      for (const [name, value] of Object.entries(this.deps.headers)) response.setHeader(name, value);
      const path = (request.url ?? '/').split('?')[0];
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        send(response, 405, { code: 'METHOD_NOT_ALLOWED' });
        return;
      }
      if (path === '/metrics') {
        response.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' });
        response.end(this.deps.metricsText());
      } else if (path === '/healthz') {
        send(response, 200, { status: 'ok' });
      } else if (path === '/readyz') {
        readiness(this.deps.infrastructure).then(
          ({ status, body }) => send(response, status, body),
          () => send(response, 503, { status: 'not-ready' }),
        );
      } else {
        send(response, 404, { code: 'NOT_FOUND' });
      }
    });
    this.server.requestTimeout = 10_000;
    this.server.headersTimeout = 10_000;
  }

  /** Listens; resolves with `http://host:port`. */
  async listen(host: string, port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
