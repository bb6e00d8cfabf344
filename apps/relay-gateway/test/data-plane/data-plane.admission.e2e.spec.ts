/**
 * Admission of sockets that have not proven who they are, on the real gateway (control plane on embedded
 * PGlite), through real sockets from several loopback source addresses (127.0.0.2, 127.0.0.3, … are other
 * sources to the gateway):
 *
 * - unauthenticated /v1/companion sockets have their own budget (count per process and per source, bytes
 *   per socket) and never count against the authenticated Companions' cap: a real Companion gets in while
 *   idle sockets hold the whole budget (the oldest idle one gives way);
 * - browser upgrades are limited per source and held in room *before* the ticket is consumed, so a refused
 *   upgrade leaves its ticket usable.
 */
import { randomBytes } from 'node:crypto';
import { connect as tcpConnect, type Socket } from 'node:net';

import { waitUntil } from '@trustmesh/platform-testing';

import { frames } from './support/frames';
import { connect, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN as ORIGIN, type TestRelay } from './support/test-relay';

jest.setTimeout(120_000);

const peers: TestPeer[] = [];
const sockets: Socket[] = [];

afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** An open /v1/companion socket from `localAddress` that says nothing. */
async function idleCompanion(relay: TestRelay, localAddress: string): Promise<TestPeer> {
  const peer = connect(`${relay.wsUrl}/v1/companion`, { localAddress });
  peers.push(peer);
  await Promise.race([peer.opened, peer.closed]);
  return peer;
}

const rejections = (relay: TestRelay, socket: string, code: string) => relay.dataPlane.metrics.registry.value('relay_rejections_total', { socket, code });

describe('unauthenticated Companion sockets', () => {
  let relay: TestRelay;

  beforeAll(async () => {
    relay = await startTestRelay({
      dataPlane: {
        // One authenticated Companion fits; idle sockets must not be what fills it.
        RELAY_MAX_COMPANION_CONNECTIONS: '1',
        RELAY_MAX_PENDING_COMPANION_HANDSHAKES: '4',
        RELAY_MAX_PENDING_PER_SOURCE: '2',
        // Only pressure and bytes end an idle handshake in this block.
        RELAY_COMPANION_HANDSHAKE_TIMEOUT_MS: '600000',
        RELAY_COMPANION_HANDSHAKE_MAX_BYTES: '4096',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await relay?.close();
  });

  it('lets a real Companion in while idle sockets from several sources hold the whole unauthenticated budget', async () => {
    const device = await relay.enrollCompanion();
    const first = [await idleCompanion(relay, '127.0.0.2'), await idleCompanion(relay, '127.0.0.2')];
    for (const peer of first) expect(peer.refusal).toBeUndefined();
    // A third from the same source is over its per-source share.
    const third = await idleCompanion(relay, '127.0.0.2');
    await third.closed;
    expect(third.refusal).toEqual({ status: 429, body: JSON.stringify({ code: 'RATE_LIMITED' }) });
    const second = [await idleCompanion(relay, '127.0.0.3'), await idleCompanion(relay, '127.0.0.3')];
    for (const peer of second) expect(peer.refusal).toBeUndefined();

    // The budget is full; the real Companion still gets in (the oldest idle socket gives way) and goes live.
    const real = connect(`${relay.wsUrl}/v1/companion`);
    peers.push(real);
    await real.opened;
    real.send(frames.deviceConnect(device.deviceId, device.credential));
    await relay.waitForStatus(device.workspaceId, 'online');
    expect(await first[0]!.waitForClose()).toBe(1013);
    expect(rejections(relay, 'companion', 'HANDSHAKE_EVICTED')).toBeGreaterThanOrEqual(1);
    expect(real.closeCode).toBeUndefined();
    for (const peer of [first[1]!, ...second]) expect(peer.closeCode).toBeUndefined();
  });

  it('closes an unauthenticated socket that sends more than the handshake allows, without buffering its frame', async () => {
    const before = rejections(relay, 'companion', 'HANDSHAKE_TOO_LARGE');
    const socket = await rawUpgrade(relay, '/v1/companion', '127.0.0.4');
    sockets.push(socket);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // A masked text frame announcing 1 MiB (under ws' own limit of twice the frame limit), then its payload
    // in pieces: the relay must not wait for the frame to complete.
    const header = Buffer.alloc(14);
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(1_048_576), 2);
    randomBytes(4).copy(header, 10);
    socket.write(header);
    for (let sent = 0; sent < 64 * 1024 && !socket.destroyed; sent += 1024) socket.write(Buffer.alloc(1024, 0x20));
    await closed;
    await waitUntil(() => rejections(relay, 'companion', 'HANDSHAKE_TOO_LARGE') === before + 1, { what: 'the HANDSHAKE_TOO_LARGE rejection', timeoutMs: 15_000 });
  });

  it('frees the place of an upgrade that ws refuses (a malformed handshake), so a source is not locked out', async () => {
    const url = new URL(relay.wsUrl);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const socket = tcpConnect({ host: url.hostname, port: Number(url.port), localAddress: '127.0.0.8' });
      sockets.push(socket);
      socket.on('error', () => undefined);
      const answer = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.once('close', () => resolve(text));
      });
      // No Sec-WebSocket-Key: ws answers 400 and never hands the socket over.
      socket.write(`GET /v1/companion HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      expect((await answer).split('\r\n')[0]).toMatch(/^HTTP\/1\.1 400/);
    }
    const peer = await idleCompanion(relay, '127.0.0.8');
    expect(peer.refusal).toBeUndefined();
  });

  it('refuses an authenticated Companion past the cap of authenticated ones (1013), not at the upgrade', async () => {
    const [holder, other] = [await relay.enrollCompanion(), await relay.enrollCompanion()];
    const first = connect(`${relay.wsUrl}/v1/companion`);
    peers.push(first);
    await first.opened;
    first.send(frames.deviceConnect(holder.deviceId, holder.credential));
    // Past the previous test's Companion, which closed: this one holds the only authenticated place.
    await relay.waitForStatus(holder.workspaceId, 'online');
    const peer = connect(`${relay.wsUrl}/v1/companion`, { localAddress: '127.0.0.5' });
    peers.push(peer);
    await peer.opened;
    peer.send(frames.deviceConnect(other.deviceId, other.credential));
    expect(await peer.waitForClose()).toBe(1013);
    expect(await relay.status(other.workspaceId)).toBe('offline');
    expect(first.closeCode).toBeUndefined();
    expect(rejections(relay, 'companion', 'CAPACITY')).toBeGreaterThanOrEqual(1);
  });
});

describe('the Companion handshake deadline', () => {
  let relay: TestRelay;

  beforeAll(async () => {
    relay = await startTestRelay({ dataPlane: { RELAY_COMPANION_HANDSHAKE_TIMEOUT_MS: '300' } });
  }, 120_000);

  afterAll(async () => {
    await relay?.close();
  });

  it('closes a Companion that never sends device.connect (1002) and counts it', async () => {
    const peer = await idleCompanion(relay, '127.0.0.6');
    expect(await peer.waitForClose()).toBe(1002);
    expect(rejections(relay, 'companion', 'CONNECT_TIMEOUT')).toBe(1);
  });
});

describe('browser upgrades before the ticket is consumed', () => {
  let relay: TestRelay;
  let release: () => void = () => undefined;

  beforeAll(async () => {
    relay = await startTestRelay({ dataPlane: { RELAY_MAX_PENDING_PER_SOURCE: '2' } });
  }, 120_000);

  afterAll(async () => {
    release();
    await relay?.close();
  });

  it('limits upgrades per source while tickets are checked, and a refused upgrade leaves its ticket usable', async () => {
    const device = await relay.enrollCompanion();
    const tickets = await Promise.all([0, 1, 2].map(() => relay.browserTicket(device.workspaceId)));
    // The one narrow double: ticket checks that wait for the test, so upgrades stay pending on demand.
    // The real check still decides once released.
    const consume = relay.directory.consumeBrowserTicket.bind(relay.directory);
    const gate = new Promise<void>((resolve) => (release = resolve));
    const spy = jest.spyOn(relay.directory, 'consumeBrowserTicket').mockImplementation(async (ticket, origin) => {
      await gate;
      return consume(ticket, origin);
    });
    const url = (ticket: string) => `${relay.wsUrl}/v1/browser?ticket=${encodeURIComponent(ticket)}`;
    const held = [0, 1].map((index) => connect(url(tickets[index]!), { origin: ORIGIN, localAddress: '127.0.0.7' }));
    peers.push(...held);
    await waitUntil(() => spy.mock.calls.length === 2, { what: 'two ticket checks in flight', timeoutMs: 15_000 });
    const over = connect(url(tickets[2]!), { origin: ORIGIN, localAddress: '127.0.0.7' });
    peers.push(over);
    await over.closed;
    expect(over.refusal).toEqual({ status: 429, body: JSON.stringify({ code: 'RATE_LIMITED' }) });
    expect(spy.mock.calls.length).toBe(2);

    release();
    for (const peer of held) await peer.waitFor((frame) => frame.type === 'session.ready', 'session.ready');
    // The refused upgrade's ticket was never consumed: it still opens a session.
    const retry = connect(url(tickets[2]!), { origin: ORIGIN, localAddress: '127.0.0.7' });
    peers.push(retry);
    await retry.waitFor((frame) => frame.type === 'session.ready', 'session.ready with the refused ticket');
  });
});

/** Opens a WebSocket upgrade by hand and resolves with the socket once the 101 arrived. */
function rawUpgrade(relay: TestRelay, path: string, localAddress: string): Promise<Socket> {
  const url = new URL(relay.wsUrl);
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: url.hostname, port: Number(url.port), localAddress });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (head.startsWith('HTTP/1.1 101')) resolve(socket);
      else reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
    };
    socket.on('data', onData);
  });
}
