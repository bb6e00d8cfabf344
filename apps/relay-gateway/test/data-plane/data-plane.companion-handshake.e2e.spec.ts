/**
 * A Companion's replay right after `device.connect`, while its credential is still being checked: the
 * relay holds the frames in TCP (the socket is paused), not in a per-connection queue, so a replay of any
 * length is delivered in order once the device is live, and an unauthenticated peer cannot make the relay
 * buffer megabytes per connection. On the real gateway (control plane on embedded PGlite), with a device
 * enrolled by pairing code and a ticket from CreateBrowserSession.
 */
import { frames } from './support/frames';
import { browser, companion, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN as ORIGIN, type TestRelay } from './support/test-relay';

const AUTHENTICATION_DELAY_MS = 400;
const REPLAY_FRAMES = 3_000;

let gateway: TestRelay;
const peers: TestPeer[] = [];

beforeAll(async () => {
  gateway = await startTestRelay({ dataPlane: { RELAY_FIRST_ACK_TIMEOUT_MS: '60000' } });
  // The one narrow double of this file: a credential check slow enough that the whole replay is sent
  // before it ends, which the real directory (milliseconds on PGlite) cannot be made to take on demand.
  // The real check still decides; it only starts later.
  const authenticate = gateway.directory.authenticateDevice.bind(gateway.directory);
  jest.spyOn(gateway.directory, 'authenticateDevice').mockImplementation(async (deviceId, credential) => {
    await new Promise((resolve) => setTimeout(resolve, AUTHENTICATION_DELAY_MS));
    return authenticate(deviceId, credential);
  });
}, 120_000);

afterAll(async () => {
  for (const peer of peers) peer.close();
  await gateway?.close();
});

it('delivers a replay longer than the handshake queue that was sent before the credential was checked', async () => {
  const device = await gateway.enrollCompanion();
  const { workspaceId } = device;
  const watcher = await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId), ORIGIN);
  peers.push(watcher);
  watcher.send(frames.ack(workspaceId, -1));

  const peer = await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
  peers.push(peer);
  for (let sequence = 0; sequence < REPLAY_FRAMES; sequence += 1) peer.send(frames.event(workspaceId, sequence));

  await watcher.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === REPLAY_FRAMES - 1, 'the last replayed frame');
  const sequences = watcher.ofType('runtime.event').map((frame) => frame['relaySequence']);
  expect(sequences).toEqual(Array.from({ length: REPLAY_FRAMES }, (_, index) => index));
  expect(peer.closeCode).toBeUndefined();
  await gateway.waitForStatus(workspaceId, 'online');
});
