// A browser socket before its session opens, on real `ws` sockets: the relay pauses reading while the
// workspace's status is looked up, so early frames wait in TCP rather than in its memory, then reads them in
// order once the session opens; every way out of opening resumes reads, so the closing handshake completes.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

import { waitUntil } from '@trustmesh/platform-testing';
import { CLOSE_CODES } from '@trustmesh/relay-protocol';
import { WebSocket, WebSocketServer } from 'ws';

import type { AcceptedBrowserTicket } from '../control/relay-directory.port';
import { acceptBrowser } from './browser.socket';
import { DEFAULT_DATA_PLANE_CONFIG } from './data-plane.config';
import { DataPlaneMetrics } from './data-plane.metrics';
import type { BrowserPeer, WorkspaceHub } from './workspace-hub';

const WORKSPACE_ID = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';

const ticket: AcceptedBrowserTicket = {
  ok: true,
  workspaceId: WORKSPACE_ID,
  sessionId: '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53',
  acceptedWireVersions: ['1.2'],
  userId: 'user-1',
  origin: 'https://app.trustmesh.test',
  encrypted: false,
  expiresAt: new Date(Date.now() + 60_000),
  issuedPosition: 1,
};

/** The hub's side of an opening session, answered when the test says. */
class OpeningHub {
  readonly frames: Array<{ type: string; throughRelaySequence?: number }> = [];
  readonly errors: string[] = [];
  closedWith: number | undefined;
  private answer!: (outcome: 'open' | 'refused') => void;
  private fail!: (error: Error) => void;
  private readonly outcome = new Promise<'open' | 'refused'>((resolve, reject) => {
    this.answer = resolve;
    this.fail = reject;
  });

  browserOpened(peer: BrowserPeer): Promise<'open' | 'refused'> {
    peer.wire = '1.2';
    return this.outcome;
  }
  browserFrame(_peer: BrowserPeer, frame: { type: string; throughRelaySequence?: number }): void {
    this.frames.push(frame);
  }
  takeAckCredit(): boolean {
    return true;
  }
  sessionError(peer: BrowserPeer, code: string): void {
    this.errors.push(code);
    peer.socket.close(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
  }
  browserClosed(_peer: BrowserPeer, _reason: string, code: number): void {
    this.closedWith = code;
  }
  open(): void {
    this.answer('open');
  }
  refuse(): void {
    this.answer('refused');
  }
  break(): void {
    this.fail(new Error('directory down'));
  }
}

describe('a browser socket while its session opens', () => {
  let server: WebSocketServer;
  let url: string;
  const clients: WebSocket[] = [];

  beforeAll(async () => {
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.terminate();
  });
  afterAll(async () => {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  });

  async function connect(hub: OpeningHub, openTimeoutMs?: number) {
    const accepted = new Promise<WebSocket>((resolve) =>
      server.once('connection', (ws: WebSocket) => {
        acceptBrowser(ws, ticket, {
          config: { ...DEFAULT_DATA_PLANE_CONFIG, heartbeatIntervalMs: 60_000 },
          hub: hub as unknown as WorkspaceHub,
          metrics: new DataPlaneMetrics(),
          logger: { log: () => undefined },
          ...(openTimeoutMs === undefined ? {} : { openTimeoutMs }),
        });
        resolve(ws);
      }),
    );
    const client = new WebSocket(url);
    clients.push(client);
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    await once(client, 'open');
    return { client, relaySide: await accepted, closed };
  }

  const ack = (through: number) => JSON.stringify({ type: 'runtime.ack', workspaceId: WORKSPACE_ID, throughRelaySequence: through });

  it('reads nothing until the session opens, then every early frame in order', async () => {
    const hub = new OpeningHub();
    const { client, relaySide } = await connect(hub);
    expect(relaySide.isPaused).toBe(true);
    for (let through = 0; through < 5; through += 1) client.send(ack(through));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hub.frames).toEqual([]);

    hub.open();
    await waitUntil(() => hub.frames.length === 5, { what: 'the early frames to be read' });
    expect(hub.frames.map((frame) => frame.throughRelaySequence)).toEqual([0, 1, 2, 3, 4]);
    expect(relaySide.isPaused).toBe(false);
    client.send(ack(5));
    await waitUntil(() => hub.frames.length === 6, { what: 'a frame after opening' });
  });

  it('finishes the closing handshake of a refused session', async () => {
    const hub = new OpeningHub();
    const { relaySide, closed } = await connect(hub);
    hub.refuse();
    await waitUntil(() => !relaySide.isPaused, { what: 'reads to resume' });
    relaySide.close(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
    await expect(closed).resolves.toBe(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
    await waitUntil(() => hub.closedWith === CLOSE_CODES.SESSION_ERROR_RETRYABLE, { what: 'the hub to hear of the close' });
  });

  it('ends a session whose status lookup failed with a retryable session.error', async () => {
    const hub = new OpeningHub();
    const { closed } = await connect(hub);
    hub.break();
    await expect(closed).resolves.toBe(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
    expect(hub.errors).toEqual(['RELAY_INTERNAL_ERROR']);
  });

  it('closes a session that does not open in time with the retryable close, without waiting for the hub', async () => {
    const hub = new OpeningHub();
    const { client, closed } = await connect(hub, 200);
    client.send(ack(0));
    await expect(closed).resolves.toBe(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
    hub.open();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hub.frames).toEqual([]);
  });

  it('ends only the session whose frame the hub failed on, with a retryable session.error, and keeps the process up', async () => {
    const hub = new OpeningHub();
    hub.browserFrame = () => {
      throw new RangeError('Maximum call stack size exceeded');
    };
    const { client, closed } = await connect(hub);
    const received: string[] = [];
    client.on('message', (data: Buffer) => received.push(data.toString('utf8')));
    hub.open();
    client.send(ack(0));
    await expect(closed).resolves.toBe(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
    expect(hub.errors).toEqual(['RELAY_INTERNAL_ERROR']);
    // Another session on the same server is served as usual.
    const healthy = new OpeningHub();
    const other = await connect(healthy);
    healthy.open();
    other.client.send(ack(1));
    await waitUntil(() => healthy.frames.length === 1, { what: 'the other session to be served' });
  });
});
