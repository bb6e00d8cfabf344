/**
 * An app's operator port: GET /metrics (Prometheus text from the app's prom-client registry), /healthz and /readyz on a plain HTTP listener of
 * its own (each app names it, e.g. RELAY_OPERATOR_HOST / RELAY_OPERATOR_PORT, loopback by default).
 *
 * Why a port rather than a bearer on the public port: metrics name every rejection code and connection
 * count, which is reconnaissance for anyone on the internet, and a scraper credential would be one more
 * secret to rotate. A port that is not published (loopback, or a pod-internal interface the operator
 * names) keeps them off the public listener with nothing to leak. Apps keep their probes on the public
 * port too, where load balancers look for them.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Registry } from '@trustmesh/platform-metrics';

/** What /readyz answers: 200 when ready, 503 otherwise, with a JSON body saying why. */
export interface ReadinessAnswer {
  status: number;
  body: unknown;
}

export interface OperatorServerOptions {
  /** The app's prom-client registry (`createMetricsRegistry()`), rendered on each scrape. */
  registry: Registry;
  readiness: () => Promise<ReadinessAnswer>;
  /** Set on every answer (e.g. the app's security headers). */
  headers?: Readonly<Record<string, string>>;
}

/** A JSON answer that no cache keeps. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), 'Cache-Control': 'no-store' });
  response.end(text);
}

export class OperatorServer {
  private readonly server: Server;

  constructor(options: OperatorServerOptions) {
    this.server = createServer((request, response) => {
      for (const [name, value] of Object.entries(options.headers ?? {})) response.setHeader(name, value);
      const path = (request.url ?? '/').split('?')[0];
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        sendJson(response, 405, { code: 'METHOD_NOT_ALLOWED' });
      } else if (path === '/metrics') {
        // A family that cannot be read leaves itself out (see platform-metrics); a registry that throws anyway
        // answers 500 without its text.
        options.registry.metrics().then(
          (text) => {
            response.writeHead(200, { 'Content-Type': options.registry.contentType, 'Cache-Control': 'no-store' });
            response.end(text);
          },
          () => sendJson(response, 500, { code: 'METRICS_UNAVAILABLE' }),
        );
      } else if (path === '/healthz') {
        sendJson(response, 200, { status: 'ok' });
      } else if (path === '/readyz') {
        // A readiness check that throws is not ready, and says nothing of why (its text may be internal).
        options.readiness().then(
          ({ status, body }) => sendJson(response, status, body),
          () => sendJson(response, 503, { status: 'not-ready' }),
        );
      } else {
        sendJson(response, 404, { code: 'NOT_FOUND' });
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
