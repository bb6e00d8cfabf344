/**
 * A real local HTTP server (node:http, port 0) standing in for a model provider in tests. It records every
 * request (path, headers, parsed JSON body) and answers each with the next scripted reply; the wire format
 * of a reply is up to the test (see `anthropic.wire.ts`, `openai.wire.ts`).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export type ScriptedReply =
  | { kind: 'json'; status?: number; body: unknown }
  | { kind: 'raw'; status?: number; contentType?: string; body: string }
  /** A body of `bytes` bytes sent in chunks, without Content-Length unless `declareLength`. */
  | { kind: 'large'; bytes: number; declareLength?: boolean }
  /** Accept the request and never answer. */
  | { kind: 'hang' };

export interface FakeModelServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** `script(index)` gives the reply to the index-th request (0-based). */
export async function startFakeModelServer(script: (index: number, request: RecordedRequest) => ScriptedReply): Promise<FakeModelServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const reply = script(requests.length - 1, recorded);
      switch (reply.kind) {
        case 'json':
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(reply.body));
          return;
        case 'raw':
          res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
          res.end(reply.body);
          return;
        case 'large': {
          res.writeHead(200, { 'content-type': 'application/json', ...(reply.declareLength ? { 'content-length': String(reply.bytes) } : {}) });
          const chunk = Buffer.alloc(64 * 1024, 'a');
          let sent = 0;
          const pump = (): void => {
            while (sent < reply.bytes && !res.destroyed) {
              const size = Math.min(chunk.length, reply.bytes - sent);
              sent += size;
              if (!res.write(chunk.subarray(0, size))) {
                res.once('drain', pump);
                return;
              }
            }
            res.end();
          };
          res.on('error', () => undefined);
          pump();
          return;
        }
        case 'hang':
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
