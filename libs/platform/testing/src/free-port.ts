/**
 * A loopback TCP port that nothing listens on right now, for a test that must hand an address to a process
 * before that process starts (a client configured with a server that comes later). Another process could take
 * the port in between; tests that can bind to port 0 themselves should.
 */
import { createServer } from 'node:net';

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
