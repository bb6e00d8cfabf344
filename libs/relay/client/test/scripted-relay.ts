/**
 * A relay played by the test on a real `ws` WebSocketServer: each browser connection is handed to the
 * test, which reads what the client sends and answers frame by frame. Only the tests use `ws`; the
 * library gets it injected like any caller would.
 */
// eslint-disable-next-line @nx/enforce-module-boundaries -- the tests play the relay on a real ws server; the library never imports ws
import { WebSocketServer, WebSocket } from 'ws';

import type { WebSocketConstructorLike } from '../src';

/** `ws`'s WebSocket fits the client's port as it is (checked here by the compiler). */
export const NodeWebSocket: WebSocketConstructorLike = WebSocket;

export class RelayConnection {
  private readonly inbox: string[] = [];
  private waiters: Array<(text: string) => void> = [];
  readonly url: string;
  readonly closed: Promise<{ code: number }>;

  constructor(
    readonly socket: WebSocket,
    url: string | undefined,
  ) {
    this.url = url ?? '';
    socket.on('message', (data, isBinary) => {
      const text = isBinary ? '<binary>' : data.toString();
      const waiter = this.waiters.shift();
      if (waiter) waiter(text);
      else this.inbox.push(text);
    });
    this.closed = new Promise((resolve) => socket.on('close', (code) => resolve({ code })));
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  sendBinary(bytes: Uint8Array): void {
    this.socket.send(bytes, { binary: true });
  }

  /** The next text frame the client sent, raw. */
  nextText(): Promise<string> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async next<T = Record<string, unknown>>(): Promise<T> {
    return JSON.parse(await this.nextText()) as T;
  }

  /** Skips frames until one of `type` (and matching `where`) arrives. */
  async nextOf<T = Record<string, unknown>>(type: string, where: (frame: Record<string, unknown>) => boolean = () => true): Promise<T> {
    for (;;) {
      const frame = await this.next();
      if (frame['type'] === type && where(frame)) return frame as T;
    }
  }

  /** The next request of `method`; the client's ACKs in between are skipped. */
  nextRequest(method?: string): Promise<{ requestId: string; method: string; params: Record<string, unknown>; workspaceId: string }> {
    return this.nextOf('runtime.request', (frame) => method === undefined || frame['method'] === method);
  }

  nextAck(): Promise<{ throughRelaySequence: number }> {
    return this.nextOf('runtime.ack');
  }

  /**
   * The client's ACKs up to the one naming `target` (ACKs are coalesced per turn of the event loop, so frames
   * sent together may be ACKed once or several times, depending on how the socket delivered them).
   */
  async acksThrough(target: number): Promise<number[]> {
    const seen: number[] = [];
    for (;;) {
      const { throughRelaySequence } = await this.nextAck();
      seen.push(throughRelaySequence);
      if (throughRelaySequence >= target) return seen;
    }
  }

  /** Resolves once the client's side is open too (a ws client answers pings only when OPEN). */
  clientOpen(): Promise<void> {
    return new Promise((resolve) => {
      this.socket.once('pong', () => resolve());
      this.socket.ping();
    });
  }

  close(code = 1001): void {
    this.socket.close(code);
  }

  /** Drops the TCP connection without a close handshake. */
  terminate(): void {
    this.socket.terminate();
  }
}

export class ScriptedRelay {
  private readonly pending: RelayConnection[] = [];
  private waiters: Array<(connection: RelayConnection) => void> = [];
  private tickets = 0;
  readonly connections: RelayConnection[] = [];

  private constructor(private readonly server: WebSocketServer) {
    server.on('connection', (socket, request) => {
      const connection = new RelayConnection(socket, request.url);
      this.connections.push(connection);
      const waiter = this.waiters.shift();
      if (waiter) waiter(connection);
      else this.pending.push(connection);
    });
  }

  static async start(): Promise<ScriptedRelay> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    return new ScriptedRelay(server);
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return address.port;
  }

  /** A fresh descriptor per call, as an app backend would mint one per attempt. */
  descriptor = async (): Promise<{ connectUrl: string; expiresAt: string }> => {
    this.tickets += 1;
    return { connectUrl: `ws://127.0.0.1:${this.port}/v1/browser?ticket=t${this.tickets}`, expiresAt: '2999-01-01T00:00:00Z' };
  };

  get ticketsIssued(): number {
    return this.tickets;
  }

  nextConnection(): Promise<RelayConnection> {
    const queued = this.pending.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Between tests: connections nobody took yet belong to clients that are gone. */
  forgetPending(): void {
    for (const connection of this.pending.splice(0)) connection.terminate();
    this.waiters = [];
  }

  async stop(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
