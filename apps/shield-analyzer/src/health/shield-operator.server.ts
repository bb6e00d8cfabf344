/**
 * The operator port (SHIELD_OPERATOR_HOST / SHIELD_OPERATOR_PORT, loopback by default): GET /metrics
 * (Prometheus text), /healthz and /readyz on a plain HTTP listener of its own, as the relay gateway does,
 * so metrics stay off the public listener.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ShieldOperatorServerDeps {
  metricsText: () => string;
  readiness: () => Promise<{ ready: boolean; checks: Record<string, string> }>;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(text);
}

export class ShieldOperatorServer {
  private readonly server: Server;

  constructor(deps: ShieldOperatorServerDeps) {
    this.server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (request.method !== 'GET' && request.method !== 'HEAD') send(response, 405, { code: 'METHOD_NOT_ALLOWED' });
      else if (path === '/metrics') {
        response.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' });
        response.end(deps.metricsText());
      } else if (path === '/healthz') send(response, 200, { status: 'ok' });
      else if (path === '/readyz') {
        deps.readiness().then(
          ({ ready, checks }) => send(response, ready ? 200 : 503, { status: ready ? 'ready' : 'not-ready', checks }),
          () => send(response, 503, { status: 'not-ready' }),
        );
      } else send(response, 404, { code: 'NOT_FOUND' });
    });
    this.server.requestTimeout = 10_000;
    this.server.headersTimeout = 10_000;
  }

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
