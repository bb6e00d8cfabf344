/**
 * Real WebSocket peers for the data plane's tests: a scripted Companion and a browser, each recording
 * every frame it receives and how its socket closed, with waits that name what they await.
 */
import { WebSocket } from 'ws';

import { waitUntil } from '@trustmesh/platform-testing';

export interface Frame {
  type: string;
  [key: string]: unknown;
}

export class TestPeer {
  readonly received: Frame[] = [];
  readonly raw: string[] = [];
  closeCode: number | undefined;
  readonly closed: Promise<number>;
  readonly opened: Promise<void>;
  /** The upgrade's refusal, if any: HTTP status and body. */
  refusal: { status: number; body: string } | undefined;

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    this.opened.catch(() => undefined);
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => {
        this.refusal = { status: response.statusCode ?? 0, body };
        ws.emit('close', 0);
      });
    });
    this.closed = new Promise((resolve) => {
      ws.once('close', (code: number) => {
        this.closeCode = code;
        resolve(code);
      });
    });
    ws.on('error', () => undefined);
    ws.on('message', (data) => {
      const text = data.toString();
      this.raw.push(text);
      this.received.push(JSON.parse(text) as Frame);
    });
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  ofType(type: string): Frame[] {
    return this.received.filter((frame) => frame.type === type);
  }

  async waitFor(predicate: (frame: Frame) => boolean, what: string, count = 1): Promise<Frame[]> {
    await waitUntil(() => this.received.filter(predicate).length >= count, { what, timeoutMs: 15_000 });
    return this.received.filter(predicate);
  }

  async waitForClose(): Promise<number> {
    await this.closed;
    return this.closeCode ?? 0;
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
  }
}

export function connect(
  url: string,
  options: { origin?: string; autoPong?: boolean; ca?: string | Buffer; servername?: string; localAddress?: string } = {},
): TestPeer {
  return new TestPeer(
    new WebSocket(url, {
      ...(options.origin ? { origin: options.origin } : {}),
      // Another loopback address (127.0.0.2, …) is another source to the gateway's per-source limits.
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      perMessageDeflate: false,
      ...(options.autoPong === false ? { autoPong: false } : {}),
      // wss: verify the gateway's (development) certificate, nothing else.
      ...(options.ca ? { ca: options.ca, servername: options.servername ?? 'localhost' } : {}),
    }),
  );
}

/** A Companion that connected and sent `device.connect` (`ca`: the gateway's certificate, for wss://). */
export async function companion(baseUrl: string, connectFrame: unknown, options: { ca?: string | Buffer } = {}): Promise<TestPeer> {
  const peer = connect(`${baseUrl}/v1/companion`, options);
  await peer.opened;
  peer.send(connectFrame);
  return peer;
}

/** A browser session that reached `session.ready`. */
export async function browser(baseUrl: string, ticket: string, origin: string): Promise<TestPeer> {
  const peer = connect(`${baseUrl}/v1/browser?ticket=${encodeURIComponent(ticket)}`, { origin });
  await peer.opened;
  await peer.waitFor((frame) => frame.type === 'session.ready', 'session.ready');
  return peer;
}
