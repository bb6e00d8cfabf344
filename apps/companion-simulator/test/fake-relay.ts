/**
 * A relay's /v1/companion played by a `ws` server, for specs: records every socket and its frames, can
 * refuse upgrades, and sends frames as the relay would.
 */
import { WebSocketServer, type WebSocket } from 'ws';

export interface RelaySocket {
  socket: WebSocket;
  frames: string[];
  closeCode: number | null;
}

export class FakeRelay {
  readonly sockets: RelaySocket[] = [];
  refuse = false;

  private constructor(readonly server: WebSocketServer) {
    server.on('connection', (socket) => {
      const entry: RelaySocket = { socket, frames: [], closeCode: null };
      this.sockets.push(entry);
      socket.on('message', (data) => entry.frames.push(String(data)));
      socket.on('close', (code) => (entry.closeCode = code));
    });
  }

  static async start(): Promise<FakeRelay> {
    let relay: FakeRelay | undefined = undefined;
    const server = await new Promise<WebSocketServer>((resolve) => {
      const s: WebSocketServer = new WebSocketServer(
        {
          host: '127.0.0.1',
          port: 0,
          path: '/v1/companion',
          verifyClient: (_info, done) => (relay?.refuse ? done(false, 503) : done(true)),
        },
        () => resolve(s),
      );
    });
    relay = new FakeRelay(server);
    return relay;
  }

  get port(): number {
    const address = this.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('not listening');
    return address.port;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/v1/companion`;
  }

  latest(): RelaySocket {
    const last = this.sockets[this.sockets.length - 1];
    if (!last) throw new Error('no socket yet');
    return last;
  }

  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Parsed frames of a socket. */
export function framesOf(socket: RelaySocket): Array<Record<string, unknown>> {
  return socket.frames.map((text) => JSON.parse(text) as Record<string, unknown>);
}
