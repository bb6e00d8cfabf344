// The transport against a real `ws` server playing the relay's /v1/companion: device.connect first on every
// socket, one generation per socket, replay after reconnect in the core's order, the §11 backoff schedule
// with its reset, heartbeats, the open timeout, TLS trust, and a clean close on stop.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { waitUntil } from '@trustmesh/platform-testing';
import { WebSocketServer, type WebSocket } from 'ws';

import { FakeRelay } from '../../test/fake-relay';
import type { CompanionCore, FrameSender } from './companion-core.port';
import { CompanionTransport, type CompanionTransportOptions } from './companion.transport';

const DEVICE_ID = '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53';
const WORKSPACE_ID = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';
const CREDENTIAL = 'device-credential-0123456789abcdef';

/**
 * A stand-in for the Companion core with the replay rule of §6: frames are numbered and buffered; each new
 * generation gets every unacknowledged frame in order, then live frames.
 */
class BufferingCore implements CompanionCore {
  private generations = 0;
  private current: { generation: number; send: FrameSender } | null = null;
  private readonly buffer: Array<{ sequence: number; text: string }> = [];
  private acknowledged = -1;
  readonly received: Array<[number, string]> = [];
  readonly disconnected: number[] = [];
  shutdowns = 0;

  connect(send: FrameSender): number {
    const generation = ++this.generations;
    this.current = { generation, send };
    for (const frame of this.buffer) void send(frame.text).catch(() => undefined);
    return generation;
  }

  receive(frameText: string, generation: number): void {
    this.received.push([generation, frameText]);
    const frame = JSON.parse(frameText) as { type: string; throughRelaySequence?: number };
    if (frame.type === 'runtime.ack' && typeof frame.throughRelaySequence === 'number' && frame.throughRelaySequence > this.acknowledged) {
      this.acknowledged = frame.throughRelaySequence;
      this.buffer.splice(0, this.buffer.filter((f) => f.sequence <= this.acknowledged).length);
    }
  }

  disconnect(generation: number): void {
    this.disconnected.push(generation);
    if (this.current?.generation === generation) this.current = null;
  }

  async shutdown(): Promise<void> {
    this.shutdowns += 1;
  }

  emit(sequence: number): void {
    const text = JSON.stringify({ type: 'runtime.event', workspaceId: WORKSPACE_ID, relaySequence: sequence, event: { n: sequence } });
    this.buffer.push({ sequence, text });
    void this.current?.send(text).catch(() => undefined);
  }
}

async function startRelay(): Promise<FakeRelay> {
  return FakeRelay.start();
}

function transportFor(url: string, core: CompanionCore, extra: Partial<CompanionTransportOptions> = {}) {
  const scheduled: number[] = [];
  const transport = new CompanionTransport({
    companionUrl: url,
    deviceId: DEVICE_ID,
    deviceCredential: CREDENTIAL,
    wireVersion: '1.2',
    tls: { insecureDev: false },
    core,
    delayFor: () => 5,
    observer: { reconnectScheduled: (delay) => scheduled.push(delay) },
    ...extra,
  });
  return { transport, scheduled };
}

describe('CompanionTransport against a relay played by a ws server', () => {
  let relay: FakeRelay;
  const transports: CompanionTransport[] = [];

  // A relay of its own per test: a connection a stopped transport still had in flight can never reach the
  // next test's relay and pass for that test's socket.
  beforeEach(async () => {
    relay = await startRelay();
  });
  afterEach(async () => {
    await Promise.all(transports.splice(0).map((t) => t.stop()));
    await relay.close();
  });

  it('sends device.connect with the device credential first, then the core streams on generation 1', async () => {
    const core = new BufferingCore();
    const { transport } = transportFor(relay.url, core);
    transports.push(transport);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => transport.stats.state === 'connected', { what: 'the transport to open' });
    core.emit(0);
    core.emit(1);
    const socket = relay.sockets[before]!;
    await waitUntil(() => socket.frames.length === 3, { what: 'three frames at the relay' });

    expect(JSON.parse(socket.frames[0]!)).toEqual({ type: 'device.connect', protocolVersion: '1.2', deviceId: DEVICE_ID, pairingToken: CREDENTIAL });
    expect(socket.frames.slice(1).map((f) => (JSON.parse(f) as { relaySequence: number }).relaySequence)).toEqual([0, 1]);
    expect(transport.stats.generation).toBe(1);
    expect(transport.stats.framesSent).toBe(3);
  });

  it('hands inbound frames to the core tagged with their generation, and counts acks and requests', async () => {
    const core = new BufferingCore();
    const { transport } = transportFor(relay.url, core);
    transports.push(transport);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => relay.sockets.length > before && transport.stats.state === 'connected', { what: 'a socket' });
    const socket = relay.sockets[before]!;
    socket.socket.send(JSON.stringify({ type: 'runtime.ack', workspaceId: WORKSPACE_ID, throughRelaySequence: -1 }));
    socket.socket.send(JSON.stringify({ type: 'runtime.request', workspaceId: WORKSPACE_ID, requestId: 'r', method: 'thread.list', params: { limit: 1 } }));
    socket.socket.send(Buffer.from('binary is never handed on'), { binary: true });
    await waitUntil(() => core.received.length === 2, { what: 'two frames at the core' });
    expect(core.received.map(([generation, text]) => [generation, (JSON.parse(text) as { type: string }).type])).toEqual([
      [1, 'runtime.ack'],
      [1, 'runtime.request'],
    ]);
    expect(transport.stats).toMatchObject({ acksReceived: 1, requestsReceived: 1 });
  });

  it('ends only the socket whose frame the core threw on, then reconnects as a new generation', async () => {
    // BufferingCore parses what it receives, so text that is not JSON makes it throw synchronously.
    const core = new BufferingCore();
    const { transport } = transportFor(relay.url, core);
    transports.push(transport);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => relay.sockets.length > before && transport.stats.state === 'connected', { what: 'a socket' });
    relay.sockets[before]!.socket.send('{"type":');
    await waitUntil(() => core.disconnected.includes(1), { what: 'the first generation to end' });
    await waitUntil(() => transport.stats.state === 'connected' && transport.stats.generation === 2, { what: 'a new generation' });
    relay.sockets[relay.sockets.length - 1]!.socket.send(JSON.stringify({ type: 'runtime.ack', workspaceId: WORKSPACE_ID, throughRelaySequence: -1 }));
    await waitUntil(() => core.received.some(([generation]) => generation === 2), { what: 'a frame on the new generation' });
  });

  it('reconnects after a lost socket as a new generation: device.connect, then the unacked frames in order, then live', async () => {
    const core = new BufferingCore();
    const { transport } = transportFor(relay.url, core);
    transports.push(transport);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => transport.stats.state === 'connected', { what: 'the first socket' });
    const first = relay.sockets[before]!;
    for (const n of [0, 1, 2, 3]) core.emit(n);
    await waitUntil(() => first.frames.length === 5, { what: 'the first frames' });
    first.socket.send(JSON.stringify({ type: 'runtime.ack', workspaceId: WORKSPACE_ID, throughRelaySequence: 1 }));
    await waitUntil(() => core.received.length === 1, { what: 'the ack at the core' });

    first.socket.terminate();
    await waitUntil(() => relay.sockets.length === before + 2 && transport.stats.state === 'connected', { what: 'the reconnect' });
    core.emit(4);
    const second = relay.sockets[before + 1]!;
    await waitUntil(() => second.frames.length === 4, { what: 'replay and live frames' });

    expect((JSON.parse(second.frames[0]!) as { type: string }).type).toBe('device.connect');
    expect(second.frames.slice(1).map((f) => (JSON.parse(f) as { relaySequence: number }).relaySequence)).toEqual([2, 3, 4]);
    expect(core.disconnected).toEqual([1]);
    expect(transport.stats.generation).toBe(2);
    expect(transport.stats.reconnects).toBe(1);
  });

  it('follows the §11 schedule while the relay refuses, and starts again at 500 ms once a transport opened', async () => {
    relay.refuse = true;
    const core = new BufferingCore();
    const { transport, scheduled } = transportFor(relay.url, core);
    transports.push(transport);
    transport.start();
    await waitUntil(() => scheduled.length >= 4, { what: 'four refused attempts' });
    relay.refuse = false;
    await waitUntil(() => transport.stats.state === 'connected', { what: 'the transport to open' });
    const attemptsBeforeOpen = scheduled.length;
    expect(scheduled.slice(0, 4)).toEqual([500, 1000, 2000, 4000]);

    relay.latest().socket.terminate();
    await waitUntil(() => scheduled.length > attemptsBeforeOpen, { what: 'the next reconnect' });
    expect(scheduled[attemptsBeforeOpen]).toBe(500);
  });

  it('keeps growing the schedule when the relay refuses the credential with 1008 after the open', async () => {
    const core = new BufferingCore();
    const { transport, scheduled } = transportFor(relay.url, core);
    transports.push(transport);
    const refuse = (socket: WebSocket) => socket.once('message', () => socket.close(1008, 'DEVICE_CREDENTIAL_REFUSED'));
    relay.server.on('connection', refuse);
    try {
      transport.start();
      await waitUntil(() => scheduled.length >= 3, { what: 'three refused connects' });
      expect(scheduled.slice(0, 3)).toEqual([500, 1000, 2000]);
    } finally {
      relay.server.off('connection', refuse);
    }
  });

  it('answers the relay\'s pings', async () => {
    // A heartbeat timeout far beyond any stall of a loaded machine: this test is about the answer, not the timer.
    const core = new BufferingCore();
    const { transport } = transportFor(relay.url, core, { heartbeatTimeoutMs: 60_000 });
    transports.push(transport);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => relay.sockets.length > before && transport.stats.state === 'connected', { what: 'a socket' });
    const socket = relay.sockets[before]!;
    const pong = new Promise<string>((resolve, reject) => {
      socket.socket.once('pong', (data) => resolve(String(data)));
      socket.socket.once('close', () => reject(new Error('the socket closed before the pong')));
    });
    socket.socket.ping('beat');
    await expect(pong).resolves.toBe('beat');
  });

  it('drops a socket that goes silent past the heartbeat timeout, and reconnects', async () => {
    const core = new BufferingCore();
    const { transport } = transportFor(relay.url, core, { heartbeatTimeoutMs: 300 });
    transports.push(transport);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => relay.sockets.length > before, { what: 'a socket' });
    const socket = relay.sockets[before]!;
    // The relay sends nothing at all on it: the transport gives it up (no closing handshake) and dials again.
    await waitUntil(() => socket.closeCode !== null, { what: 'the silent socket to be dropped' });
    expect(socket.closeCode).toBe(1006);
    await waitUntil(() => relay.sockets.length > before + 1, { what: 'a reconnect after the silence' });
  });

  it('closes cleanly with 1000 on stop and does not reconnect', async () => {
    const core = new BufferingCore();
    const { transport } = transportFor(relay.url, core);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => transport.stats.state === 'connected', { what: 'the transport to open' });
    await transport.stop();
    const socket = relay.sockets[before]!;
    await waitUntil(() => socket.closeCode !== null, { what: 'the close at the relay' });
    expect(socket.closeCode).toBe(1000);
    expect(transport.stats.state).toBe('stopped');
    expect(core.disconnected).toEqual([1]);
    expect(relay.sockets.length).toBe(before + 1);
  });

  it('restarts onto a new core: the old generation ends and the new core starts at generation 1', async () => {
    const oldCore = new BufferingCore();
    const { transport } = transportFor(relay.url, oldCore);
    transports.push(transport);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => transport.stats.state === 'connected', { what: 'the transport to open' });
    oldCore.emit(0);
    oldCore.emit(1);
    transport.pause();
    const newCore = new BufferingCore();
    transport.resume(newCore);
    await waitUntil(() => relay.sockets.length === before + 2 && transport.stats.state === 'connected', { what: 'the new socket' });
    newCore.emit(0);
    const second = relay.sockets[before + 1]!;
    await waitUntil(() => second.frames.length === 2, { what: 'frames of the new core' });
    expect(oldCore.disconnected).toEqual([1]);
    expect(second.frames.map((f) => JSON.parse(f) as { type: string; relaySequence?: number }).map((f) => f.relaySequence ?? f.type)).toEqual(['device.connect', 0]);
    expect(transport.stats.generation).toBe(1);
  });

  it('drops a connection on request and waits the requested time before reconnecting', async () => {
    const core = new BufferingCore();
    const { transport } = transportFor(relay.url, core);
    transports.push(transport);
    const before = relay.sockets.length;
    transport.start();
    await waitUntil(() => transport.stats.state === 'connected', { what: 'the transport to open' });
    expect(transport.dropConnection(60_000)).toBe(1);
    await waitUntil(() => transport.stats.state === 'backing-off', { what: 'the backoff' });
    expect(relay.sockets[before]!.closeCode).not.toBe(1000);
    expect(relay.sockets.length).toBe(before + 1);
  });
});

describe('CompanionTransport open timeout', () => {
  let silent: NetServer;
  const held: Socket[] = [];
  beforeAll(async () => {
    // Accepts TCP and never answers the upgrade.
    silent = createNetServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('gives up on an open that never completes and schedules a reconnect', async () => {
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const { transport, scheduled } = transportFor(`ws://127.0.0.1:${port}/v1/companion`, new BufferingCore(), { openTimeoutMs: 200, delayFor: () => 60_000 });
    transport.start();
    await waitUntil(() => scheduled.length === 1, { what: 'the open to time out' });
    expect(transport.stats.state).toBe('backing-off');
    await transport.stop();
  });
});

describe('CompanionTransport over TLS with the gateway\'s self-signed certificate', () => {
  let dir: string;
  let https: HttpsServer;
  let wss: WebSocketServer;
  let port = 0;
  let cert: Buffer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sim-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    cert = readFileSync(join(dir, 'cert.pem'));
    https = createHttpsServer({ cert, key: readFileSync(join(dir, 'key.pem')) });
    wss = new WebSocketServer({ server: https, path: '/v1/companion' });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    const address = https.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => https.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects when the certificate is trusted through the CA file', async () => {
    const { transport } = transportFor(`wss://127.0.0.1:${port}/v1/companion`, new BufferingCore(), { tls: { ca: cert, insecureDev: false } });
    transport.start();
    await waitUntil(() => transport.stats.state === 'connected', { what: 'the TLS transport to open' });
    await transport.stop();
  });

  it('refuses an untrusted certificate and keeps retrying', async () => {
    const { transport, scheduled } = transportFor(`wss://127.0.0.1:${port}/v1/companion`, new BufferingCore(), { delayFor: () => 60_000 });
    transport.start();
    await waitUntil(() => scheduled.length === 1, { what: 'the refused handshake' });
    expect(transport.stats.framesSent).toBe(0);
    await transport.stop();
  });
});
