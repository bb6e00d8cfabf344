/**
 * The baseline of `npm run bench:relay-gateway`: a process that passes frames between the same sockets as
 * the relay gateway, with `ws` alone and nothing else — no validation, no persistence, no routing beyond
 * pairing a workspace's Companion socket with its browser sockets.
 *
 * It speaks just enough for the load mode's unchanged peers to run against it:
 * - `/v1/companion`: the first frame (`device.connect`) is read for its `deviceId`, which the benchmark's
 *   provisioner makes equal to the workspace id; the credential is not checked. Every later frame is passed
 *   raw (the received bytes, unparsed) to every browser socket of the workspace.
 * - `/v1/browser?ticket=<workspaceId>`: the ticket is the workspace id and is not checked; the socket gets a
 *   `session.ready` (Wire 1.2, online) as the gateway would send, then every frame it sends is passed raw to
 *   the workspace's Companion socket.
 *
 * Run as a child process (so it never shares an event loop with the load generator):
 *   node --import tsx baseline-forwarder.ts   with FORWARDER_CERT_FILE, FORWARDER_KEY_FILE, FORWARDER_PORT (0 =
 *   any) in the environment; it prints `baseline forwarder listening <port>` once it listens.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

import { WebSocketServer, type RawData, type WebSocket } from 'ws';

interface Workspace {
  companion: WebSocket | undefined;
  readonly browsers: Set<WebSocket>;
}

const workspaces = new Map<string, Workspace>();

function workspace(id: string): Workspace {
  let found = workspaces.get(id);
  if (!found) {
    found = { companion: undefined, browsers: new Set() };
    workspaces.set(id, found);
  }
  return found;
}

function collect(id: string): void {
  const found = workspaces.get(id);
  if (found && !found.companion && found.browsers.size === 0) workspaces.delete(id);
}

function acceptCompanion(ws: WebSocket): void {
  let bound: { id: string; workspace: Workspace } | undefined;
  ws.on('message', (data: RawData, binary: boolean) => {
    if (bound) {
      for (const browser of bound.workspace.browsers) browser.send(data as Buffer, { binary });
      return;
    }
    let deviceId: unknown;
    try {
      deviceId = (JSON.parse(String(data)) as { deviceId?: unknown }).deviceId;
    } catch {
      deviceId = undefined;
    }
    if (typeof deviceId !== 'string') {
      ws.close(1002);
      return;
    }
    bound = { id: deviceId, workspace: workspace(deviceId) };
    bound.workspace.companion?.close(1000, 'replaced');
    bound.workspace.companion = ws;
  });
  ws.on('error', () => undefined);
  ws.once('close', () => {
    if (!bound) return;
    if (bound.workspace.companion === ws) bound.workspace.companion = undefined;
    collect(bound.id);
  });
}

function acceptBrowser(ws: WebSocket, workspaceId: string): void {
  const bound = workspace(workspaceId);
  bound.browsers.add(ws);
  ws.send(
    JSON.stringify({
      type: 'session.ready',
      controlVersion: '1.0',
      relayProtocolVersion: '1.2',
      sessionId: randomUUID(),
      workspaceId,
      workspaceStatus: 'online',
    }),
  );
  ws.on('message', (data: RawData, binary: boolean) => bound.companion?.send(data as Buffer, { binary }));
  ws.on('error', () => undefined);
  ws.once('close', () => {
    bound.browsers.delete(ws);
    collect(workspaceId);
  });
}

function main(): void {
  const certFile = process.env['FORWARDER_CERT_FILE'];
  const keyFile = process.env['FORWARDER_KEY_FILE'];
  if (!certFile || !keyFile) {
    process.stderr.write('baseline forwarder: FORWARDER_CERT_FILE and FORWARDER_KEY_FILE are required\n');
    process.exit(78);
  }
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) });
  const sockets = new WebSocketServer({ server, perMessageDeflate: false, clientTracking: false, maxPayload: 2 * 1024 * 1024 });
  sockets.on('connection', (ws, request) => {
    const url = new URL(request.url ?? '/', 'https://forwarder.invalid');
    if (url.pathname === '/v1/companion') acceptCompanion(ws);
    else if (url.pathname === '/v1/browser' && url.searchParams.get('ticket')) acceptBrowser(ws, url.searchParams.get('ticket') as string);
    else ws.close(1008);
  });
  server.listen(Number(process.env['FORWARDER_PORT'] ?? 0), '127.0.0.1', () => {
    process.stdout.write(`baseline forwarder listening ${(server.address() as AddressInfo).port}\n`);
  });
  // Nothing to drain: the benchmark stops its peers before it stops the forwarder.
  process.once('SIGTERM', () => process.exit(0));
  process.once('SIGINT', () => process.exit(0));
}

main();
