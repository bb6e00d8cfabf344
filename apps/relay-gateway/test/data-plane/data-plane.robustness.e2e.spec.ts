/**
 * Robustness and leaks at the data plane: thousands of random and mutated frames on both sockets. The
 * gateway never crashes; a Companion's invalid frames are dropped and its valid ones routed; a browser's
 * frame is forwarded to the Companion exactly when it is valid for the session, and otherwise ends the
 * session with 4002; a well-behaved browser keeps being served meanwhile and never sees a sentinel that a
 * Companion planted in a forbidden field. Against the real gateway (control plane on embedded PGlite):
 * the device is enrolled by pairing code and every session's ticket comes from CreateBrowserSession.
 */
import { randomUUID } from 'node:crypto';

import fc from 'fast-check';

import { waitUntil } from '@trustmesh/platform-testing';
import { decodeFrame } from '@trustmesh/relay-protocol';

import { frames } from './support/frames';
import { browser, companion, connect, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN as ORIGIN, type TestRelay } from './support/test-relay';

const SENTINEL = `relay-security-sentinel-${randomUUID()}`;
let gateway: TestRelay;
const peers: TestPeer[] = [];

beforeAll(async () => {
  gateway = await startTestRelay({
    dataPlane: { RELAY_FIRST_ACK_TIMEOUT_MS: '60000', RELAY_COMPANION_FRAME_BURST: '1000000', RELAY_COMPANION_FRAMES_PER_SECOND: '1000000' },
  });
}, 120_000);

afterAll(async () => {
  for (const peer of peers) peer.close();
  await gateway?.close();
});

/** Mutations of a valid frame: fields dropped, replaced with random JSON, sentinel keys added, nested too. */
const mutant = (base: Record<string, unknown>) =>
  fc
    .tuple(
      fc.array(fc.constantFrom(...Object.keys(base)), { maxLength: 2 }),
      fc.array(fc.tuple(fc.constantFrom(...Object.keys(base), 'extra', 'secret'), fc.jsonValue({ maxDepth: 2 })), { maxLength: 2 }),
      fc.boolean(),
    )
    .map(([dropped, replaced, plant]) => {
      const copy: Record<string, unknown> = structuredClone(base);
      for (const key of dropped) delete copy[key];
      for (const [key, value] of replaced) copy[key] = value;
      if (plant) copy['secret'] = SENTINEL;
      return JSON.stringify(copy);
    });

/** Inner-event mutations: a sentinel in a field the timeline forbids (raw tool input, reasons, extra keys). */
const leakyEvent = (workspaceId: string) =>
  fc.tuple(fc.nat({ max: 1_000 }), fc.constantFrom('input', 'display', 'reason', 'secret', 'message')).map(([sequence, field]) => {
    const frame = frames.event(workspaceId, sequence) as { event: { event: Record<string, unknown> } };
    frame.event.event[field] = SENTINEL;
    return JSON.stringify(frame);
  });

const garbage = fc.oneof(fc.string({ maxLength: 200 }), fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)));

it('survives thousands of hostile Companion frames, forwarding only valid ones and never a sentinel', async () => {
  const device = await gateway.enrollCompanion();
  const { workspaceId } = device;
  const peer = await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
  peers.push(peer);
  await gateway.waitForStatus(workspaceId, 'online');
  const watcher = await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId), ORIGIN);
  peers.push(watcher);
  watcher.send(frames.ack(workspaceId, -1));
  await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');

  const samples = fc.sample(
    fc.oneof(
      mutant(frames.event(workspaceId, 0)),
      mutant(frames.interactionRequest(workspaceId, 1, randomUUID())),
      mutant(frames.response(workspaceId, randomUUID())),
      mutant(frames.gap(workspaceId, 0, 1)),
      leakyEvent(workspaceId),
      garbage,
    ),
    { numRuns: 2_000, seed: 4_242 },
  );
  for (const text of samples) peer.send(text);
  // A marker after the storm: once it arrives, everything before it was handled.
  peer.send(frames.event(workspaceId, 5_000, 'marker'));
  await watcher.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === 5_000, 'the marker');
  expect(watcher.raw.join('\n')).not.toContain(SENTINEL);
  for (const text of watcher.raw) expect(decodeFrame(text, { wire: '1.2', direction: 'relay-to-browser' }).ok).toBe(true);
  expect(peer.ws.readyState).toBe(peer.ws.OPEN);
});

it('forwards a browser frame exactly when it is valid for the session, else closes with 4002', async () => {
  const device = await gateway.enrollCompanion();
  const { workspaceId } = device;
  const peer = await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
  peers.push(peer);
  await gateway.waitForStatus(workspaceId, 'online');
  const samples = fc.sample(
    fc.oneof(mutant(frames.request(workspaceId)), mutant(frames.ack(workspaceId, 3)), mutant(frames.event(workspaceId, 0)), garbage),
    // Each sample is a real session: a ticket from CreateBrowserSession, its consumption and the presence
    // writes on PGlite (~0.1 s each on two shared cores), hence fewer samples than the Companion's storm.
    { numRuns: 150, seed: 7 },
  );
  const expectedForwarded: string[] = [];
  for (let start = 0; start < samples.length; start += 25) {
    await Promise.all(
      samples.slice(start, start + 25).map(async (text) => {
        const session = connect(await gateway.browserUrl(workspaceId), { origin: ORIGIN });
        await session.waitFor((frame) => frame.type === 'session.ready', 'session.ready');
        session.send(text);
        const verdict = decodeFrame(text, { wire: '1.2', direction: 'browser-to-relay' });
        const valid = verdict.ok && (verdict.value as { workspaceId?: string }).workspaceId === workspaceId;
        const value = verdict.ok ? (verdict.value as { type?: string; throughRelaySequence?: number }) : undefined;
        if (valid && value?.type === 'runtime.ack' && (value.throughRelaySequence ?? -1) > -1) {
          // An ACK reaches the Companion only once the frames it covers are in the frames log: this workspace has
          // none, so it is held (the check below shows it never arrives).
          session.close();
        } else if (valid) {
          expectedForwarded.push(text);
          await waitUntil(() => peer.raw.includes(text), { what: 'the valid frame at the Companion' });
          session.close();
        } else {
          expect(await session.waitForClose()).toBe(4002);
        }
      }),
    );
  }
  // A well-behaved session is still served, and its request arrives after all the valid mutants.
  const good = await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId), ORIGIN);
  peers.push(good);
  const marker = frames.request(workspaceId);
  good.send(marker);
  await peer.waitFor((frame) => frame.type === 'runtime.request' && frame['requestId'] === marker.requestId, 'the marker request');
  const forwarded = peer.raw.filter((text) => !text.includes(marker.requestId));
  expect(forwarded.sort()).toEqual(expectedForwarded.sort());
});
