// A peer socket on a real `ws` connection: frames sent in one turn of the event loop reach the peer complete
// and in order, handed to the kernel in one write instead of one per frame.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

import { waitUntil } from '@trustmesh/platform-testing';
import { WebSocket, WebSocketServer } from 'ws';

import { PeerSocket } from './peer-socket';

describe('a peer socket', () => {
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  const clients: WebSocket[] = [];

  beforeAll(async () => {
    server = createServer();
    sockets = new WebSocketServer({ noServer: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.terminate();
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** A connection whose relay side is a PeerSocket over the upgraded socket; counts the writes that socket makes. */
  async function connect(): Promise<{ peer: PeerSocket; client: WebSocket; received: string[]; writes: () => number }> {
    const accepted = new Promise<{ peer: PeerSocket; writes: () => number }>((resolve) =>
      server.once('upgrade', (request, socket: Duplex, head: Buffer) => {
        let writes = 0;
        const transport = socket as Duplex & { _write: Duplex['_write']; _writev?: Duplex['_writev'] };
        const write = transport._write.bind(transport);
        transport._write = (chunk, encoding, callback) => {
          writes += 1;
          write(chunk, encoding, callback);
        };
        const writev = transport._writev?.bind(transport);
        if (writev) {
          transport._writev = (chunks, callback) => {
            writes += 1;
            writev(chunks, callback);
          };
        }
        sockets.handleUpgrade(request, socket, head, (ws) => {
          const peer = new PeerSocket(ws, { heartbeatIntervalMs: 60_000, sendHighWaterBytes: 1024 * 1024, onSlow: () => undefined, onDead: () => undefined, transport: socket });
          resolve({ peer, writes: () => writes });
        });
      }),
    );
    const client = new WebSocket(url);
    clients.push(client);
    const received: string[] = [];
    client.on('message', (data: Buffer) => received.push(data.toString('utf8')));
    await once(client, 'open');
    return { ...(await accepted), client, received };
  }

  it('hands the frames of one turn to the kernel in one write, complete and in order', async () => {
    const { peer, received, writes } = await connect();
    const before = writes();
    const frames = Array.from({ length: 50 }, (_, index) => JSON.stringify({ type: 'runtime.event', relaySequence: index }));
    let written = 0;
    for (const frame of frames) expect(peer.send(frame, () => (written += 1))).toBe(true);

    await waitUntil(() => received.length === frames.length && written === frames.length);
    expect(received).toEqual(frames);
    expect(writes() - before).toBe(1);
  });

  it('sends what a later turn sends on its own, without waiting for more', async () => {
    const { peer, received } = await connect();
    peer.send('{"type":"first"}');
    await waitUntil(() => received.length === 1);
    peer.send('{"type":"second"}');
    await waitUntil(() => received.length === 2);
    expect(received).toEqual(['{"type":"first"}', '{"type":"second"}']);
  });
});
