/**
 * A Companion's replay right after `device.connect`, while its credential is still being checked: the
 * relay holds the frames in TCP (the socket is paused), not in a per-connection queue, so a replay of any
 * length is delivered in order once the device is live, and an unauthenticated peer cannot make the relay
 * buffer megabytes per connection.
 */
import { randomUUID } from 'node:crypto';

import { waitUntil } from '@trustmesh/platform-testing';

import { frames } from './support/frames';
import { InMemoryDirectory } from './support/in-memory-directory';
import { browser, companion, type TestPeer } from './support/peers';
import { startTestGateway, type TestGateway } from './support/data-plane.harness';

const ORIGIN = 'https://app.example';
const AUTHENTICATION_DELAY_MS = 400;
const REPLAY_FRAMES = 3_000;

class SlowDirectory extends InMemoryDirectory {
  override async authenticateDevice(deviceId: string, credential: string) {
    await new Promise((resolve) => setTimeout(resolve, AUTHENTICATION_DELAY_MS));
    return super.authenticateDevice(deviceId, credential);
  }
}

const directory = new SlowDirectory();
let gateway: TestGateway;
const peers: TestPeer[] = [];

beforeAll(async () => {
  gateway = await startTestGateway({ directory, config: { firstAckTimeoutMs: 60_000 } });
});

afterAll(async () => {
  for (const peer of peers) peer.close();
  await gateway.close();
});

it('delivers a replay longer than the handshake queue that was sent before the credential was checked', async () => {
  const workspaceId = randomUUID();
  const device = directory.addDevice(workspaceId);
  const watcher = await browser(gateway.wsUrl, directory.addTicket({ workspaceId, origin: ORIGIN }), ORIGIN);
  peers.push(watcher);
  watcher.send(frames.ack(workspaceId, -1));

  const peer = await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
  peers.push(peer);
  for (let sequence = 0; sequence < REPLAY_FRAMES; sequence += 1) peer.send(frames.event(workspaceId, sequence));

  await watcher.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === REPLAY_FRAMES - 1, 'the last replayed frame');
  const sequences = watcher.ofType('runtime.event').map((frame) => frame['relaySequence']);
  expect(sequences).toEqual(Array.from({ length: REPLAY_FRAMES }, (_, index) => index));
  expect(peer.closeCode).toBeUndefined();
  await waitUntil(() => directory.views.get(workspaceId)?.status === 'online', { what: 'online' });
});
