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
const THREAD_SENTINEL = randomUUID();
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

/** The same frame with `key` written twice: first `first` (which JSON.parse would drop), then the frame's own value. */
const withDuplicateKey = (frame: Record<string, unknown>, key: string, first: unknown) => {
  const text = JSON.stringify(frame);
  return `{${JSON.stringify(key)}:${JSON.stringify(first)},${text.slice(1)}`;
};
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const rejections = (socket: 'browser' | 'companion', code: string) => gateway.dataPlane.metrics.registry.value('relay_rejections_total', { socket, code });

/** Two tenants, each a Companion with a browser watching its stream. */
async function tenant() {
  const device = await gateway.enrollCompanion();
  const { workspaceId } = device;
  const peer = await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
  peers.push(peer);
  await gateway.waitForStatus(workspaceId, 'online');
  const watcher = await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId), ORIGIN);
  peers.push(watcher);
  watcher.send(frames.ack(workspaceId, -1));
  await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
  return { workspaceId, peer, watcher };
}

/** Both tenants are still served both ways: a request reaches the Companion and an event reaches the browser. */
async function stillServed(t: Awaited<ReturnType<typeof tenant>>, sequence: number) {
  const request = frames.request(t.workspaceId);
  t.watcher.send(request);
  await t.peer.waitFor((frame) => frame['requestId'] === request.requestId, 'a later request at the Companion');
  t.peer.send(frames.event(t.workspaceId, sequence, `marker-${sequence}`));
  await t.watcher.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === sequence, 'a later event at the browser');
  expect(t.peer.ws.readyState).toBe(t.peer.ws.OPEN);
}

describe('deep nesting (a 9,000-deep array is 18 KB, far under the size limit)', () => {
  it('ends only the browser session that sent it, with 4002, and the gateway keeps serving every tenant', async () => {
    const [offended, other] = [await tenant(), await tenant()];
    const refusedBefore = rejections('browser', 'FRAME_TOO_DEEP');
    const offender = await browser(gateway.wsUrl, await gateway.browserTicket(offended.workspaceId), ORIGIN);
    peers.push(offender);
    const deep = { ...frames.request(offended.workspaceId), params: '<deep>' };
    offender.send(JSON.stringify(deep).replace('"<deep>"', nested(9_000)));
    expect(await offender.waitForClose()).toBe(4002);
    expect(rejections('browser', 'FRAME_TOO_DEEP')).toBe(refusedBefore + 1);
    expect(offended.peer.raw.some((text) => text.includes(deep.requestId))).toBe(false);
    await stillServed(offended, 10);
    await stillServed(other, 10);
  });

  it('drops a Companion response whose result is 9,000 deep, and the gateway keeps serving every tenant', async () => {
    const [offended, other] = [await tenant(), await tenant()];
    const refusedBefore = rejections('companion', 'FRAME_TOO_DEEP');
    const request = frames.request(offended.workspaceId);
    offended.watcher.send(request);
    await offended.peer.waitFor((frame) => frame['requestId'] === request.requestId, 'the request at the Companion');
    const deep = frames.response(offended.workspaceId, request.requestId, '<deep>');
    offended.peer.send(JSON.stringify(deep).replace('"<deep>"', nested(9_000)));
    // The same request answered properly afterwards arrives alone: the deep answer was dropped, not forwarded.
    offended.peer.send(frames.response(offended.workspaceId, request.requestId));
    const [answer] = await offended.watcher.waitFor((frame) => frame.type === 'runtime.response', 'the valid response');
    expect(answer?.['result']).toEqual({ items: [], nextCursor: null });
    expect(rejections('companion', 'FRAME_TOO_DEEP')).toBe(refusedBefore + 1);
    await stillServed(offended, 20);
    await stillServed(other, 20);
    expect(offended.watcher.ofType('runtime.response')).toHaveLength(1);
  });
});

describe('duplicate keys: what the relay forwards is exactly what it validated', () => {
  it('never forwards a Companion frame whose first copy of a key carried a secret (event, projection, result)', async () => {
    const t = await tenant();
    const { workspaceId } = t;
    const refusedBefore = rejections('companion', 'FRAME_DUPLICATE_KEY');
    const leakyEvent = { ...frames.event(workspaceId, 1).event, event: { type: 'tool.started', toolCallId: 'call-1', agentName: 'agent', toolName: 'shell', input: { token: SENTINEL } } };
    t.peer.send(withDuplicateKey(frames.event(workspaceId, 1), 'event', leakyEvent));
    const interactionId = randomUUID();
    t.peer.send(withDuplicateKey(frames.interactionRequest(workspaceId, 2, interactionId), 'projection', { approvalId: randomUUID(), agentName: 'agent', toolName: 'tool', secret: SENTINEL }));
    const request = frames.request(workspaceId);
    t.watcher.send(request);
    await t.peer.waitFor((frame) => frame['requestId'] === request.requestId, 'the request at the Companion');
    t.peer.send(withDuplicateKey(frames.response(workspaceId, request.requestId), 'result', { secret: SENTINEL }));
    // Unescaped and escaped spellings of one key are one key.
    t.peer.send(JSON.stringify(frames.event(workspaceId, 3)).replace('{"type"', `{"\\u0065vent":${JSON.stringify(leakyEvent)},"type"`));
    await waitUntil(() => rejections('companion', 'FRAME_DUPLICATE_KEY') === refusedBefore + 4, { what: 'four duplicate-key frames refused' });
    // The stream goes on (the refused sequences are the Companion's to resend), and a later session gets no retained secret.
    t.peer.send(frames.event(workspaceId, 4, 'marker'));
    await t.watcher.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === 4, 'the marker');
    const later = await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId), ORIGIN);
    peers.push(later);
    later.send(frames.ack(workspaceId, -1));
    await later.waitFor((frame) => frame.type === 'runtime.event' && frame['relaySequence'] === 4, 'the catch-up');
    for (const session of [t.watcher, later]) {
      expect(session.raw.join('\n')).not.toContain(SENTINEL);
      expect(session.ofType('interaction.request')).toHaveLength(0);
      expect(session.ofType('runtime.response')).toHaveLength(0);
    }
    await stillServed(t, 5);
  });

  it('closes a browser session that repeats a key with 4002 and never forwards the frame', async () => {
    const [t, other] = [await tenant(), await tenant()];
    const refusedBefore = rejections('browser', 'FRAME_DUPLICATE_KEY');
    for (const [key, first] of [
      ['method', 'turn.start'],
      ['params', { threadId: THREAD_SENTINEL }],
      ['workspaceId', other.workspaceId],
    ] as const) {
      const session = await browser(gateway.wsUrl, await gateway.browserTicket(t.workspaceId), ORIGIN);
      peers.push(session);
      const request = frames.request(t.workspaceId);
      session.send(withDuplicateKey(request, key, first));
      expect(await session.waitForClose()).toBe(4002);
      expect(t.peer.raw.some((text) => text.includes(request.requestId))).toBe(false);
      expect(other.peer.raw.some((text) => text.includes(request.requestId))).toBe(false);
    }
    expect(rejections('browser', 'FRAME_DUPLICATE_KEY')).toBe(refusedBefore + 3);
    await stillServed(t, 1);
    await stillServed(other, 1);
  });
});

it('closes a browser session with 4002 for any oversized frame, even past twice the limit (where ws would say 1009)', async () => {
  const t = await tenant();
  const refusedBefore = rejections('browser', 'FRAME_TOO_LARGE');
  for (const bytes of [300 * 1024, 600 * 1024, 2 * 1024 * 1024]) {
    const session = await browser(gateway.wsUrl, await gateway.browserTicket(t.workspaceId), ORIGIN);
    peers.push(session);
    session.send(JSON.stringify(frames.request(t.workspaceId, 'thread.create', { title: 'x'.repeat(bytes) })));
    expect([bytes, await session.waitForClose()]).toEqual([bytes, 4002]);
  }
  expect(rejections('browser', 'FRAME_TOO_LARGE')).toBe(refusedBefore + 3);
  await stillServed(t, 1);
});
