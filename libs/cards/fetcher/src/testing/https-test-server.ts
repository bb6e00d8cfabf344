/**
 * A real HTTPS server on 127.0.0.1:0 for fetcher tests. Each route gives a status, headers and a body, optionally
 * delayed or dribbled out chunk by chunk (slow-loris), or computed from the request (conditional GET). The server
 * presents a certificate from the given test CA for the given host names, so clients connect with SNI `acme.test`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

import { createTestCa, type TestCa } from './test-ca';

export interface TestRoute {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Wait before sending the response head. */
  readonly headDelayMs?: number;
  /** Send the body as these chunks, waiting `chunkDelayMs` between them; `endless` repeats them until the client leaves. */
  readonly chunks?: readonly (string | Uint8Array)[];
  readonly chunkDelayMs?: number;
  readonly endless?: boolean;
}

export type TestRouteHandler = TestRoute | ((req: IncomingMessage) => TestRoute);

export interface TestHttpsServer {
  readonly port: number;
  /** The CA that issued the server's certificate: pass `ca.cert` as SafeFetcher's `ca`. */
  readonly ca: TestCa;
  /** `https://<hostname>:<port>` for the first host name. */
  readonly origin: string;
  /** Paths requested so far, in order (`/a?b`). */
  readonly requests: readonly { path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

export interface StartHttpsServerOptions {
  /** Default: a new test CA. */
  readonly ca?: TestCa;
  /** Host names on the certificate; default `['acme.test']`. */
  readonly hostnames?: readonly string[];
}

export async function startHttpsServer(routes: Readonly<Record<string, TestRouteHandler>>, options: StartHttpsServerOptions = {}): Promise<TestHttpsServer> {
  const hostnames = options.hostnames ?? ['acme.test'];
  const ca = options.ca ?? (await createTestCa());
  const leaf = await ca.issue(hostnames);
  const requests: { path: string; headers: IncomingMessage['headers'] }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const server: Server = createServer({ key: leaf.key, cert: leaf.cert }, (req: IncomingMessage, res: ServerResponse) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    const handler = routes[(req.url ?? '').split('?')[0] ?? ''];
    const route: TestRoute = handler === undefined ? { status: 404, body: 'not found' } : typeof handler === 'function' ? handler(req) : handler;
    later(route.headDelayMs ?? 0, () => {
      res.writeHead(route.status ?? 200, { ...route.headers });
      if (!route.chunks && !route.endless) return void res.end(route.body ?? '');
      const chunks = route.chunks?.length ? route.chunks : ['x'];
      let index = 0;
      const next = (): void => {
        if (res.destroyed) return;
        if (index >= chunks.length && !route.endless) return void res.end();
        res.write(chunks[index++ % chunks.length] ?? '');
        later(route.chunkDelayMs ?? 0, next);
      };
      next();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    ca,
    origin: `https://${hostnames[0]}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
