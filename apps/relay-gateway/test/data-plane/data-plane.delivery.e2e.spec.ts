/**
 * What the relay delivers to a browser, end to end through real sockets against the real gateway (one
 * gateway for the file, a workspace per test, devices enrolled with pairing codes, tickets from
 * CreateBrowserSession):
 *
 * - a Companion's `runtime.response` is checked against the result schema of the request's method and
 *   the §9 rules in every session version; a result that fails never reaches the browser, which gets the
 *   protocol's `COMPANION_ERROR` response instead of silence;
 * - each sequenced frame reaches a session at most once, whether by interaction redelivery, catch-up or
 *   live fan-out;
 * - retained interactions are bounded in bytes (per workspace) and in time (`expiresAt` is capped).
 */
import { randomUUID } from 'node:crypto';

import { waitUntil } from '@trustmesh/platform-testing';
import { validateWireFrame, wireError } from '@trustmesh/relay-protocol';

import { frames, THREAD_ID, TURN_ID } from './support/frames';
import { browser, companion, type Frame, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN as ORIGIN, type TestRelay } from './support/test-relay';

const RETAINED_BYTES_PER_WORKSPACE = 64 * 1024;
let gateway: TestRelay;
const peers: TestPeer[] = [];

beforeAll(async () => {
  gateway = await startTestRelay({
    dataPlane: { RELAY_FIRST_ACK_TIMEOUT_MS: '60000', RELAY_RETAINED_INTERACTIONS_BYTES: String(RETAINED_BYTES_PER_WORKSPACE) },
  });
}, 120_000);

afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
});

afterAll(async () => {
  await gateway?.close();
});

function track<T extends TestPeer>(peer: T): T {
  peers.push(peer);
  return peer;
}

async function onlineWorkspace(version = '1.2') {
  const device = await gateway.enrollCompanion();
  const { workspaceId } = device;
  const peer = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential, version)));
  await gateway.waitForStatus(workspaceId, 'online');
  return { workspaceId, device, companion: peer };
}

async function openBrowser(workspaceId: string, ticket: { acceptedWireVersions?: string[]; userId?: string } = {}): Promise<TestPeer> {
  return track(await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId, ticket), ORIGIN));
}

const rejections = (code: string) => gateway.dataPlane.metrics.registry.value('relay_rejections_total', { socket: 'companion', code });

/** A request from the browser, seen at the Companion, answered with `answer`; the browser's response. */
async function roundTrip(workspaceId: string, session: TestPeer, peer: TestPeer, request: ReturnType<typeof frames.request>, answer: unknown): Promise<Frame> {
  session.send(request);
  await peer.waitFor((frame) => frame['requestId'] === request.requestId, 'the request at the Companion');
  peer.send(answer);
  const [response] = await session.waitFor((frame) => frame.type === 'runtime.response' && frame['requestId'] === request.requestId, 'the response');
  return response as Frame;
}

describe('responses: the result schema of the request method and §9, for every session version', () => {
  it.each([['1.2'], ['1.1']])('answers a %s session COMPANION_ERROR for a result with an extra key, never forwarding it', async (sessionWire) => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.2');
    const session = await openBrowser(workspaceId, { acceptedWireVersions: [sessionWire] });
    const sentinel = `relay-security-sentinel-${randomUUID()}`;
    const before = rejections('RESPONSE_RESULT_INVALID');
    const request = frames.request(workspaceId, 'thread.list', { limit: 10 });
    const response = await roundTrip(workspaceId, session, peer, request, frames.response(workspaceId, request.requestId, { items: [], nextCursor: null, secret: sentinel }));
    expect(response).toEqual({ type: 'runtime.response', requestId: request.requestId, workspaceId, error: wireError('COMPANION_ERROR') });
    expect(validateWireFrame(sessionWire as '1.1' | '1.2', response).ok).toBe(true);
    expect(session.raw.join('\n')).not.toContain(sentinel);
    expect(rejections('RESPONSE_RESULT_INVALID')).toBe(before + 1);

    // A valid result still goes through unchanged.
    const next = frames.request(workspaceId, 'thread.list', { limit: 10 });
    expect(await roundTrip(workspaceId, session, peer, next, frames.response(workspaceId, next.requestId))).toEqual(frames.response(workspaceId, next.requestId));
  });

  it('never lets a duplicate `result` key carry an unchecked one along: the frame is refused at read', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.2');
    const session = await openBrowser(workspaceId);
    const sentinel = `relay-security-sentinel-${randomUUID()}`;
    const before = rejections('FRAME_DUPLICATE_KEY');
    const request = frames.request(workspaceId, 'thread.list', { limit: 10 });
    session.send(request);
    await peer.waitFor((frame) => frame['requestId'] === request.requestId, 'the request at the Companion');
    // JSON.parse keeps the last of two keys: the first `result` would pass unchecked if the text went on.
    peer.send(`{"type":"runtime.response","requestId":"${request.requestId}","workspaceId":"${workspaceId}","result":{"items":[],"nextCursor":null,"secret":"${sentinel}"},"result":{"items":[],"nextCursor":null}}`);
    await waitUntil(() => rejections('FRAME_DUPLICATE_KEY') > before, { what: 'the duplicate-key frame refused' });
    // The request is still awaiting its answer: a well-formed one goes through.
    peer.send(frames.response(workspaceId, request.requestId));
    const [response] = await session.waitFor((frame) => frame.type === 'runtime.response' && frame['requestId'] === request.requestId, 'the response');
    expect(response).toEqual(frames.response(workspaceId, request.requestId));
    expect(session.raw.join('\n')).not.toContain(sentinel);
  });

  it('checks the result against the method the request named (interaction.candidate is exactly {accepted:true})', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.1');
    const session = await openBrowser(workspaceId);
    const candidate = frames.candidate(workspaceId, randomUUID());
    session.send(candidate);
    await peer.waitFor((frame) => frame['requestId'] === candidate.requestId, 'the candidate at the Companion');
    // A thread.list result is a valid result of another method, not of interaction.candidate.
    peer.send(frames.response(workspaceId, candidate.requestId, { items: [], nextCursor: null }));
    const [response] = await session.waitFor((frame) => frame['requestId'] === candidate.requestId, 'the candidate response');
    expect(response?.['error']).toEqual(wireError('COMPANION_ERROR'));
  });

  it('replaces error text with the fixed message of its code: local text never crosses (§9, §10)', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.2');
    const session = await openBrowser(workspaceId);
    const sentinel = `relay-security-sentinel-${randomUUID()}`;
    const request = frames.request(workspaceId);
    const response = await roundTrip(workspaceId, session, peer, request, {
      type: 'runtime.response',
      requestId: request.requestId,
      workspaceId,
      error: { code: 'INVALID_PARAMS', message: `at /home/someone: ${sentinel}`, retryable: false },
    });
    expect(response['error']).toEqual(wireError('INVALID_PARAMS'));
    const runtime = frames.request(workspaceId);
    const passedThrough = await roundTrip(workspaceId, session, peer, runtime, {
      type: 'runtime.response',
      requestId: runtime.requestId,
      workspaceId,
      error: { code: 'JSON_RPC_-32603', message: sentinel, retryable: true },
    });
    expect(passedThrough['error']).toEqual({ code: 'JSON_RPC_-32603', message: 'The runtime reported an error.', retryable: true });
    expect(session.raw.join('\n')).not.toContain(sentinel);
  });
});

describe('each sequenced frame at most once per session', () => {
  it('does not repeat a redelivered interaction in the catch-up that follows', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.2');
    const first = await openBrowser(workspaceId);
    first.send(frames.ack(workspaceId, -1));
    const interactionId = randomUUID();
    peer.send(frames.event(workspaceId, 0));
    peer.send(frames.event(workspaceId, 1));
    peer.send(frames.interactionRequest(workspaceId, 2, interactionId));
    peer.send(frames.event(workspaceId, 3));
    await first.waitFor((frame) => frame['relaySequence'] === 3, 'the stream at the first session');

    const second = await openBrowser(workspaceId);
    await second.waitFor((frame) => frame.type === 'interaction.request', 'the redelivered interaction');
    second.send(frames.ack(workspaceId, -1));
    peer.send(frames.event(workspaceId, 4));
    await second.waitFor((frame) => frame['relaySequence'] === 4, 'the live frame after the catch-up');
    const sequences = second.received.filter((frame) => typeof frame['relaySequence'] === 'number').map((frame) => frame['relaySequence']);
    expect(sequences).toEqual([2, 0, 1, 3, 4]);
  });
});

describe('retained interactions are bounded', () => {
  /** A schema-valid user-input request of about `bytes` bytes (its controls' descriptions fill it). */
  const bigUserInput = (workspaceId: string, relaySequence: number, interactionId: string, expiresAt = '2099-01-01T00:00:00.000Z') => ({
    type: 'interaction.request',
    workspaceId,
    relaySequence,
    interactionId,
    threadId: THREAD_ID,
    turnId: TURN_ID,
    expiresAt,
    sensitivity: 'normal',
    method: 'userInput.request',
    projection: {
      controls: Array.from({ length: 16 }, (_, index) => ({ type: 'text', id: `field-${index}`, label: `Field ${index}`, description: 'x'.repeat(500), required: false })),
    },
  });

  it('by bytes per workspace: the oldest are given up, new sessions get only what fits, /metrics shows the usage', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.2');
    const first = await openBrowser(workspaceId);
    first.send(frames.ack(workspaceId, -1));
    const ids = Array.from({ length: 16 }, () => randomUUID());
    ids.forEach((id, index) => peer.send(bigUserInput(workspaceId, index, id)));
    await first.waitFor((frame) => frame.type === 'interaction.request', 'every interaction live', ids.length);
    const sizes = ids.map((id) => Buffer.byteLength(first.raw.find((text) => text.includes(id)) as string));
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(RETAINED_BYTES_PER_WORKSPACE);
    // The newest that fit the bound together.
    let kept = 0;
    for (let total = 0; kept < sizes.length && total + (sizes[sizes.length - 1 - kept] as number) <= RETAINED_BYTES_PER_WORKSPACE; kept += 1) {
      total += sizes[sizes.length - 1 - kept] as number;
    }

    const later = await openBrowser(workspaceId);
    await later.waitFor((frame) => frame.type === 'interaction.request', 'the redelivered interactions', kept);
    later.send(frames.ack(workspaceId, ids.length - 1));
    peer.send(frames.event(workspaceId, ids.length));
    await later.waitFor((frame) => frame.type === 'runtime.event', 'a live frame after the redelivery');
    expect(later.ofType('interaction.request').map((frame) => frame['interactionId'])).toEqual(ids.slice(ids.length - kept));
    const metrics = await (await fetch(`${gateway.gateway.operatorUrl}/metrics`)).text();
    expect(metrics).toMatch(/relay_retained_interactions_bytes \d+/);
    expect(metrics).toMatch(/relay_retention_evictions_total\{bound="workspace",structure="interactions"\} [1-9]/);
  });

  it('in time: an expiresAt in 2099 is retained no longer than the cap, and still forwarded unchanged', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.2');
    const first = await openBrowser(workspaceId);
    first.send(frames.ack(workspaceId, -1));
    const clamped = () => gateway.dataPlane.metrics.registry.value('relay_retention_clamped_total');
    const before = clamped();
    const request = frames.interactionRequest(workspaceId, 0, randomUUID());
    peer.send(request);
    const [live] = await first.waitFor((frame) => frame.type === 'interaction.request', 'the live interaction');
    expect(live).toEqual(request);
    await waitUntil(() => clamped() === before + 1, { what: 'the clamp counted' });
  });
});
