/**
 * The data plane end to end: real `ws` clients (a scripted Companion, browsers) against the real gateway
 * (`startRelayGateway` on embedded PGlite, its control plane behind the data plane). Devices are enrolled
 * with pairing codes, tickets come from CreateBrowserSession, revocation from RevokeDevice, and presence
 * and audit are read back from the control plane's event streams. One gateway serves the whole file; each
 * test uses its own workspace.
 */
import { randomUUID } from 'node:crypto';

import { waitUntil } from '@trustmesh/platform-testing';
import { validateControlMessage, validateWireFrame } from '@trustmesh/relay-protocol';

import { frames } from './support/frames';
import { browser, companion, connect, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN as ORIGIN, type TestRelay } from './support/test-relay';

/** The shortest ticket lifetime the gateway accepts: the expiry test waits it out. */
const TICKET_TTL_SECONDS = 5;
let gateway: TestRelay;
const peers: TestPeer[] = [];

beforeAll(async () => {
  gateway = await startTestRelay({
    dataPlane: { RELAY_FIRST_ACK_TIMEOUT_MS: '60000' },
    env: { RELAY_BROWSER_TICKET_TTL_SECONDS: String(TICKET_TTL_SECONDS) },
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

/** A workspace with an enrolled device whose Companion is connected (and GetWorkspaceStatus says online). */
async function onlineWorkspace(version = '1.2', options: { encrypted?: boolean } = {}) {
  const device = await gateway.enrollCompanion(options);
  const { workspaceId } = device;
  const peer = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential, version)));
  await gateway.waitForStatus(workspaceId, 'online');
  return { workspaceId, device, companion: peer };
}

async function openBrowser(workspaceId: string, ticket: { acceptedWireVersions?: string[]; userId?: string } = {}): Promise<TestPeer> {
  return track(await browser(gateway.wsUrl, await gateway.browserTicket(workspaceId, ticket), ORIGIN));
}

describe('companion socket (/v1/companion)', () => {
  it('closes with 1002 and no error frame when the first frame is not device.connect', async () => {
    const peer = track(connect(`${gateway.wsUrl}/v1/companion`));
    await peer.opened;
    peer.send(frames.ack(randomUUID(), -1));
    expect(await peer.waitForClose()).toBe(1002);
    expect(peer.received).toEqual([]);
  });

  it('closes with 1002 on bad JSON as the first frame', async () => {
    const peer = track(connect(`${gateway.wsUrl}/v1/companion`));
    await peer.opened;
    peer.send('{not json');
    expect(await peer.waitForClose()).toBe(1002);
  });

  it('closes with 1008 and no error frame when the credential is wrong', async () => {
    const device = await gateway.enrollCompanion();
    const peer = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, 'wrong-credential-0000')));
    expect(await peer.waitForClose()).toBe(1008);
    expect(peer.received).toEqual([]);
  });

  it('refuses Wire 1.0 with 1002: a relay never bridges a 1.0 Companion', async () => {
    const device = await gateway.enrollCompanion();
    const peer = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential, '1.0')));
    expect(await peer.waitForClose()).toBe(1002);
    expect(await gateway.events(device.workspaceId, 'CompanionConnected')).not.toContainEqual(expect.objectContaining({ deviceId: device.deviceId }));
  });

  it('lets a newer connection of the device replace the older one (closed with 1000)', async () => {
    const { workspaceId, device, companion: first } = await onlineWorkspace();
    const second = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential)));
    expect(await first.waitForClose()).toBe(1000);
    const session = await openBrowser(workspaceId);
    const request = frames.request(workspaceId);
    session.send(request);
    await second.waitFor((frame) => frame.type === 'runtime.request', 'the request at the new connection');
    await gateway.waitForEvent(workspaceId, 'CompanionDisconnected', (data) => data['reason'] === 'replaced', 'the replaced connection recorded');
    expect(await gateway.events(workspaceId, 'CompanionDisconnected')).toContainEqual(expect.objectContaining({ workspaceId, reason: 'replaced' }));
  });

  it('closes a revoked device at once and tells browsers the workspace is offline', async () => {
    const { workspaceId, device, companion: peer } = await onlineWorkspace();
    const session = await openBrowser(workspaceId);
    await gateway.revoke(device);
    expect(await peer.waitForClose()).toBe(1008);
    await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'offline', 'workspace.status offline');
  });

  it('drops invalid frames from a Companion (never forwarded) and keeps the socket', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace();
    const session = await openBrowser(workspaceId);
    session.send(frames.ack(workspaceId, -1));
    const sentinel = `relay-security-sentinel-${randomUUID()}`;
    const leaky = frames.event(workspaceId, 0);
    (leaky.event.event as Record<string, unknown>)['secret'] = sentinel;
    peer.send(leaky);
    peer.send({ ...frames.event(randomUUID(), 0, sentinel) }); // another workspace
    peer.send(frames.ack(workspaceId, 0)); // wrong direction
    peer.send(Buffer.from(JSON.stringify(frames.event(workspaceId, 0, sentinel)))); // binary
    peer.send(frames.event(workspaceId, 0, 'fine'));
    await session.waitFor((frame) => frame.type === 'runtime.event', 'the valid event');
    expect(session.raw.join('\n')).not.toContain(sentinel);
    expect(session.ofType('runtime.event')).toHaveLength(1);
    expect(peer.ws.readyState).toBe(peer.ws.OPEN);
  });
});

describe('browser upgrade (/v1/browser)', () => {
  const refusal = async (url: string, origin = ORIGIN) => {
    const peer = track(connect(url, { origin }));
    await peer.closed;
    return peer.refusal;
  };

  it('refuses a missing or unknown ticket with 401 SESSION_TICKET_INVALID', async () => {
    expect(await refusal(`${gateway.wsUrl}/v1/browser`)).toEqual({ status: 401, body: '{"code":"SESSION_TICKET_INVALID"}' });
    expect(await refusal(`${gateway.wsUrl}/v1/browser?ticket=nope`)).toEqual({ status: 401, body: '{"code":"SESSION_TICKET_INVALID"}' });
  });

  it('refuses expired and used tickets with 401, a foreign origin with 403', async () => {
    const workspaceId = await gateway.createWorkspace();
    const expired = await gateway.browserTicket(workspaceId);
    // The ticket outlives its TTL: a refusal consumes nothing, so asking with a foreign origin (refused with
    // ORIGIN_NOT_ALLOWED while the ticket is valid, checked after expiry) shows when it has expired.
    await waitUntil(
      async () => (await refusal(`${gateway.wsUrl}/v1/browser?ticket=${expired}`, 'https://evil.example'))?.body === '{"code":"SESSION_TICKET_EXPIRED"}',
      { what: 'the ticket to expire', timeoutMs: (TICKET_TTL_SECONDS + 10) * 1000, intervalMs: 500 },
    );
    expect(await refusal(`${gateway.wsUrl}/v1/browser?ticket=${expired}`)).toEqual({ status: 401, body: '{"code":"SESSION_TICKET_EXPIRED"}' });
    const ticket = await gateway.browserTicket(workspaceId);
    expect(await refusal(`${gateway.wsUrl}/v1/browser?ticket=${ticket}`, 'https://evil.example')).toEqual({ status: 403, body: '{"code":"ORIGIN_NOT_ALLOWED"}' });
    track(await browser(gateway.wsUrl, ticket, ORIGIN));
    expect(await refusal(`${gateway.wsUrl}/v1/browser?ticket=${ticket}`)).toEqual({ status: 401, body: '{"code":"SESSION_TICKET_ALREADY_USED"}' });
  });
});

describe('browser session', () => {
  it('sends session.ready first (valid Control 1.0), then workspace.status on changes', async () => {
    const device = await gateway.enrollCompanion();
    const { workspaceId } = device;
    const session = await openBrowser(workspaceId);
    const ready = session.received[0];
    expect(validateControlMessage(ready).ok).toBe(true);
    expect(ready).toMatchObject({ type: 'session.ready', workspaceId, workspaceStatus: 'offline', relayProtocolVersion: '1.2' });
    const peer = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential, '1.2')));
    await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'online', 'online');
    peer.close();
    await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'offline', 'offline');
    expect(session.ofType('session.ready')).toHaveLength(1);
  });

  it('ends a 1.2 session with a retryable session.error (4012) when the Companion comes back at 1.1', async () => {
    const { workspaceId, device, companion: peer } = await onlineWorkspace('1.2');
    const session = await openBrowser(workspaceId, { acceptedWireVersions: ['1.2', '1.1'] });
    peer.close();
    await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'offline', 'offline');
    track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential, '1.1')));
    const [error] = await session.waitFor((frame) => frame.type === 'session.error', 'session.error');
    // A reconnect renegotiates to 1.1, so the browser may retry.
    expect(error).toEqual({ type: 'session.error', code: 'RELAY_PROTOCOL_VERSION_UNSUPPORTED', retryable: true });
    expect(await session.waitForClose()).toBe(4012);
  });

  it('negotiates the ticket versions against the Companion (1.1 Companion → 1.1 session)', async () => {
    const { workspaceId } = await onlineWorkspace('1.1');
    const session = await openBrowser(workspaceId, { acceptedWireVersions: ['1.2', '1.1'] });
    expect(session.received[0]).toMatchObject({ relayProtocolVersion: '1.1', workspaceStatus: 'online' });
  });

  it('sends session.error RELAY_PROTOCOL_VERSION_UNSUPPORTED (4008) when no version overlaps', async () => {
    const { workspaceId } = await onlineWorkspace('1.1');
    const session = await openBrowser(workspaceId, { acceptedWireVersions: ['1.2'] });
    await session.waitFor((frame) => frame.type === 'session.error', 'session.error');
    expect(session.received.map((frame) => frame.type)).toEqual(['session.ready', 'session.error']);
    expect(session.received[1]).toEqual({ type: 'session.error', code: 'RELAY_PROTOCOL_VERSION_UNSUPPORTED', retryable: false });
    expect(await session.waitForClose()).toBe(4008);
  });

  it('sends session.error WORKSPACE_NOT_FOUND (4008) after session.ready for a workspace the directory does not know', async () => {
    const workspaceId = await gateway.createWorkspace();
    // The one narrow double of this file: the real control plane issues tickets only for workspaces it
    // knows and never forgets one, so "a ticket whose workspace the directory does not know" (a workspace
    // removed between issue and upgrade) cannot be produced through its API. The real directory answers
    // everything else; only its status lookup for this one workspace says "unknown".
    const lookup = gateway.directory.getWorkspaceStatus.bind(gateway.directory);
    const spy = jest.spyOn(gateway.directory, 'getWorkspaceStatus').mockImplementation((id) => (id === workspaceId ? Promise.resolve(null) : lookup(id)));
    try {
      const session = await openBrowser(workspaceId);
      await session.waitFor((frame) => frame.type === 'session.error', 'session.error');
      expect(session.received.slice(1)).toEqual([{ type: 'session.error', code: 'WORKSPACE_NOT_FOUND', retryable: false }]);
      expect(await session.waitForClose()).toBe(4008);
    } finally {
      spy.mockRestore();
    }
  });

  it('closes with 4002 on an invalid frame and never forwards it', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace();
    const session = await openBrowser(workspaceId);
    session.send(frames.request(randomUUID())); // foreign workspace
    expect(await session.waitForClose()).toBe(4002);
    const other = await openBrowser(workspaceId);
    other.send({ ...frames.request(workspaceId), extra: true });
    expect(await other.waitForClose()).toBe(4002);
    const third = await openBrowser(workspaceId);
    third.send(frames.encrypted(workspaceId, 'request', { requestId: randomUUID() })); // baseline profile
    expect(await third.waitForClose()).toBe(4002);
    const fourth = await openBrowser(workspaceId);
    fourth.send(frames.request(workspaceId, 'thread.create', { requestId: randomUUID(), title: 'x'.repeat(300_000) })); // over 256 KiB
    expect(await fourth.waitForClose()).toBe(4002);
    expect(peer.ofType('runtime.request')).toEqual([]);
  });
});

describe('routing', () => {
  it('routes requests to the Companion unchanged and each response only to its requester', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace();
    const one = await openBrowser(workspaceId);
    const two = await openBrowser(workspaceId);
    const request = frames.request(workspaceId);
    one.send(request);
    const [received] = await peer.waitFor((frame) => frame.type === 'runtime.request', 'the request');
    expect(received).toEqual(request);
    const response = frames.response(workspaceId, request.requestId);
    peer.send(response);
    const [answer] = await one.waitFor((frame) => frame.type === 'runtime.response', 'the response');
    expect(answer).toEqual(response);
    // Another request/response pair proves `two` got none of one's responses.
    const mine = frames.request(workspaceId);
    two.send(mine);
    await peer.waitFor((frame) => frame.type === 'runtime.request', 'the second request', 2);
    peer.send(frames.response(workspaceId, mine.requestId));
    await two.waitFor((frame) => frame.type === 'runtime.response', 'the second response');
    expect(two.ofType('runtime.response').map((frame) => frame['requestId'])).toEqual([mine.requestId]);
    expect(one.ofType('runtime.response').map((frame) => frame['requestId'])).toEqual([request.requestId]);
  });

  it('fans sequenced frames out to every session in order and forwards ACKs unchanged', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace();
    const one = await openBrowser(workspaceId);
    const two = await openBrowser(workspaceId);
    one.send(frames.ack(workspaceId, -1));
    two.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the first ACKs', 2);
    const interactionId = randomUUID();
    const sent = [
      frames.event(workspaceId, 0),
      frames.interactionRequest(workspaceId, 1, interactionId),
      frames.interactionResolved(workspaceId, 2, interactionId),
      frames.event(workspaceId, 3),
    ];
    for (const frame of sent) peer.send(frame);
    for (const session of [one, two]) {
      const got = await session.waitFor((frame) => 'relaySequence' in frame, 'the sequenced frames', sent.length);
      expect(got).toEqual(sent);
    }
    one.send(frames.ack(workspaceId, 3));
    const acks = await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK', 3);
    expect(acks[2]).toEqual(frames.ack(workspaceId, 3));
  });

  it('downgrades 1.2 frames and responses for a 1.1 session, and not for a 1.2 one', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.2');
    const old = await openBrowser(workspaceId, { acceptedWireVersions: ['1.1'] });
    const current = await openBrowser(workspaceId, { acceptedWireVersions: ['1.2', '1.1'] });
    expect(old.received[0]).toMatchObject({ relayProtocolVersion: '1.1' });
    expect(current.received[0]).toMatchObject({ relayProtocolVersion: '1.2' });
    old.send(frames.ack(workspaceId, -1));
    current.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'ACKs', 2);
    peer.send(frames.toolCompleted12(workspaceId, 0));
    const [downgraded] = await old.waitFor((frame) => frame.type === 'runtime.event', 'the downgraded event');
    const [full] = await current.waitFor((frame) => frame.type === 'runtime.event', 'the full event');
    const inner = (frame: unknown) => (frame as { event: { event: Record<string, unknown> } }).event.event;
    expect(inner(full)).toHaveProperty('appOutput');
    expect(inner(downgraded)).not.toHaveProperty('appOutput');
    expect(inner(downgraded)).not.toHaveProperty('operationId');
    expect(validateWireFrame('1.1', downgraded).ok).toBe(true);

    const request = frames.request(workspaceId, 'thread.capabilities', { threadId: randomUUID() });
    old.send(request);
    await peer.waitFor((frame) => frame.type === 'runtime.request', 'the request');
    const manifest = { appOutput: { supported: true }, tools: [{ name: 'tool', appOutput: { remoteReadable: false } }] };
    peer.send(frames.response(workspaceId, request.requestId, { manifest }));
    const [response] = await old.waitFor((frame) => frame.type === 'runtime.response', 'the response');
    const result = response?.['result'] as { manifest?: Record<string, unknown> } | undefined;
    expect(result?.manifest).toEqual({ tools: [{ name: 'tool' }] });
    expect(JSON.stringify(result ?? {})).not.toContain('appOutput');
  });

  it('passes encrypted envelopes through untouched on an encrypted workspace', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace('1.2', { encrypted: true });
    const session = await openBrowser(workspaceId); // encrypted: the workspace uses the profile
    session.send(frames.ack(workspaceId, -1));
    const request = frames.encrypted(workspaceId, 'request', { requestId: randomUUID() });
    session.send(request);
    const [forwarded] = await peer.waitFor((frame) => frame.type === 'runtime.encrypted', 'the envelope');
    expect(forwarded).toEqual(request);
    const event = frames.encrypted(workspaceId, 'event', { relaySequence: 0 });
    const response = frames.encrypted(workspaceId, 'response', { requestId: request.requestId as string });
    peer.send(event);
    peer.send(response);
    const got = await session.waitFor((frame) => frame.type === 'runtime.encrypted', 'the envelopes', 2);
    expect(got).toEqual([event, response]);
  });
});

describe('interaction retention (§8)', () => {
  it('redelivers unresolved interaction requests right after session.ready, in ascending relaySequence', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace();
    const watcher = await openBrowser(workspaceId);
    watcher.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const sent = [
      frames.interactionRequest(workspaceId, 0, a),
      frames.interactionRequest(workspaceId, 1, b),
      frames.interactionRequest(workspaceId, 2, c),
      frames.interactionResolved(workspaceId, 3, b),
    ];
    for (const frame of sent) peer.send(frame);
    await watcher.waitFor((frame) => 'relaySequence' in frame, 'the frames', 4);
    const session = await openBrowser(workspaceId);
    await session.waitFor((frame) => frame.type === 'interaction.request', 'the redelivered requests', 2);
    expect(session.received.slice(0, 3)).toEqual([expect.objectContaining({ type: 'session.ready' }), sent[0], sent[2]]);
    await gateway.waitForEvent(workspaceId, 'InteractionAudited', (data) => data['interactionId'] === b && data['phase'] === 'resolved', 'the resolution audit');
    expect(await gateway.events(workspaceId, 'InteractionAudited')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ workspaceId, interactionId: b, phase: 'requested', method: 'approval.request' }),
        expect.objectContaining({ workspaceId, interactionId: b, phase: 'resolved' }),
      ]),
    );
  });

  it('audits a candidate with who sent it and the response kind, never its content', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace();
    const session = await openBrowser(workspaceId, { userId: 'user-approver' });
    const interactionId = randomUUID();
    const candidate = frames.candidate(workspaceId, interactionId);
    session.send(candidate);
    await peer.waitFor((frame) => frame.type === 'runtime.request', 'the candidate');
    peer.send(frames.response(workspaceId, candidate.requestId, { accepted: true }));
    await session.waitFor((frame) => frame.type === 'runtime.response', 'the response');
    await gateway.waitForEvent(workspaceId, 'InteractionAudited', (data) => data['interactionId'] === interactionId, 'the candidate audit');
    expect(await gateway.events(workspaceId, 'InteractionAudited')).toContainEqual(
      expect.objectContaining({ interactionId, phase: 'candidate', userId: 'user-approver', outcomeKind: 'approve', responseKind: 'accepted' }),
    );
  });
});

describe('catch-up from the frames log', () => {
  it('catches a reconnecting browser up from its ACK cursor while the Companion is offline', async () => {
    const { workspaceId, companion: peer } = await onlineWorkspace();
    const first = await openBrowser(workspaceId, { userId: 'user-catch-up' });
    first.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    const sent = [0, 1, 2, 3, 4].map((sequence) => frames.event(workspaceId, sequence));
    for (const frame of sent) peer.send(frame);
    await first.waitFor((frame) => frame.type === 'runtime.event', 'the events', 5);
    first.close();
    await first.closed;
    peer.close();
    await peer.closed;
    await gateway.waitForStatus(workspaceId, 'offline');

    const again = await openBrowser(workspaceId, { userId: 'user-catch-up' });
    expect(again.received[0]).toMatchObject({ workspaceStatus: 'offline' });
    again.send(frames.ack(workspaceId, 2));
    const caught = await again.waitFor((frame) => frame.type === 'runtime.event', 'the catch-up', 2);
    expect(caught).toEqual([sent[3], sent[4]]);
    expect(again.ofType('runtime.gap')).toEqual([]);
  });

  it('after a Companion restart (sequence back to 0), never mixes epochs', async () => {
    const { workspaceId, device, companion: peer } = await onlineWorkspace();
    const first = await openBrowser(workspaceId, { userId: 'user-epochs' });
    first.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    for (const sequence of [0, 1, 2, 3]) peer.send(frames.event(workspaceId, sequence, `old-${sequence}`));
    await first.waitFor((frame) => frame.type === 'runtime.event', 'the old epoch', 4);
    first.close();
    peer.close();
    await first.closed;
    // The restarted Companion starts again at 0 with other frames: a new epoch.
    const restarted = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential)));
    const watcher = await openBrowser(workspaceId, { userId: 'user-watcher' });
    watcher.send(frames.ack(workspaceId, -1));
    await restarted.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    for (const sequence of [0, 1]) restarted.send(frames.event(workspaceId, sequence, `new-${sequence}`));
    await watcher.waitFor((frame) => frame.type === 'runtime.event', 'the new epoch', 2);
    // The first user's browser comes back with its old-epoch cursor 1: it must not get new frames 2.. on
    // top of old state; it gets a gap over the whole new epoch and rebuilds from snapshots.
    const back = await openBrowser(workspaceId, { userId: 'user-epochs' });
    back.send(frames.ack(workspaceId, 1));
    const [gap] = await back.waitFor((frame) => frame.type === 'runtime.gap', 'the gap');
    expect(gap).toEqual(frames.gap(workspaceId, 0, 1));
    expect(back.raw.join('\n')).not.toContain('old-');
    restarted.send(frames.event(workspaceId, 2, 'new-2'));
    const [live] = await back.waitFor((frame) => frame.type === 'runtime.event', 'the live frame');
    expect(live).toEqual(frames.event(workspaceId, 2, 'new-2'));
  });

  it('does not trust a cursor when only some of the user\'s earlier sessions ended in the current epoch', async () => {
    const { workspaceId, device, companion: peer } = await onlineWorkspace();
    const endedSessions = async () => (await gateway.events(workspaceId, 'BrowserSessionEnded')).length;
    // Tab 1 of the user follows the first stream to 3 and leaves (ended in the old epoch).
    const tab1 = await openBrowser(workspaceId, { userId: 'user-some-epochs' });
    tab1.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    for (const sequence of [0, 1, 2, 3]) peer.send(frames.event(workspaceId, sequence, `old-${sequence}`));
    await tab1.waitFor((frame) => frame.type === 'runtime.event', 'the old epoch', 4);
    tab1.close();
    await waitUntil(async () => (await endedSessions()) === 1, { what: 'tab 1 ended' });
    peer.close();
    await peer.closed;
    // The Companion restarts; tab 2 of the same user follows the new stream and leaves (ended in the new epoch).
    const restarted = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential)));
    await gateway.waitForStatus(workspaceId, 'online');
    const tab2 = await openBrowser(workspaceId, { userId: 'user-some-epochs' });
    tab2.send(frames.ack(workspaceId, -1));
    for (const sequence of [0, 1, 2, 3]) restarted.send(frames.event(workspaceId, sequence, `new-${sequence}`));
    await tab2.waitFor((frame) => frame.type === 'runtime.event', 'the new epoch', 4);
    tab2.close();
    await waitUntil(async () => (await endedSessions()) === 2, { what: 'tab 2 ended' });
    // Tab 1 comes back with its old-epoch cursor 1: one earlier session ended in the current epoch, one did not,
    // so the cursor may be from the old stream: a gap over the whole new epoch, not new frames 2 and 3.
    const back = await openBrowser(workspaceId, { userId: 'user-some-epochs' });
    back.send(frames.ack(workspaceId, 1));
    const [gap] = await back.waitFor((frame) => frame.type === 'runtime.gap', 'the gap');
    expect(gap).toEqual(frames.gap(workspaceId, 0, 3));
    restarted.send(frames.event(workspaceId, 4, 'new-4'));
    const [live] = await back.waitFor((frame) => frame.type === 'runtime.event', 'the live frame');
    expect(live).toEqual(frames.event(workspaceId, 4, 'new-4'));
    expect(back.ofType('runtime.event')).toHaveLength(1);
  });

  it('gives a session that opens between a Companion restart and its first frame nothing of the dead stream', async () => {
    const { workspaceId, device, companion: peer } = await onlineWorkspace();
    const first = await openBrowser(workspaceId);
    first.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    for (const sequence of [0, 1, 2]) peer.send(frames.event(workspaceId, sequence, `old-${sequence}`));
    peer.send(frames.interactionRequest(workspaceId, 3, randomUUID()));
    await first.waitFor((frame) => typeof frame.relaySequence === 'number', 'the old stream', 4);
    peer.close();
    await peer.closed;
    await gateway.waitForStatus(workspaceId, 'offline');
    // The Companion restarts: connected again, but the relay cannot know yet whether its stream goes on.
    const restarted = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential)));
    await gateway.waitForStatus(workspaceId, 'online');
    const joiner = await openBrowser(workspaceId);
    joiner.send(frames.ack(workspaceId, -1));
    await restarted.waitFor((frame) => frame.type === 'runtime.ack', 'the joiner\'s ACK');
    // Its first frame is 0 again: a new stream. The joiner must get it as its first sequenced frame; frames
    // (or an interaction) of the dead stream first would make a browser take 0 and 1 for duplicates.
    for (const sequence of [0, 1]) restarted.send(frames.event(workspaceId, sequence, `new-${sequence}`));
    const sequenced = await joiner.waitFor((frame) => typeof frame.relaySequence === 'number' || frame.type === 'runtime.gap', 'the new stream', 2);
    expect(sequenced).toEqual([frames.event(workspaceId, 0, 'new-0'), frames.event(workspaceId, 1, 'new-1')]);
    expect(joiner.raw.join('\n')).not.toContain('old-');
    // A session that was there all along saw the Companion go and come back, and gets the new stream live.
    await first.waitFor((frame) => frame.type === 'runtime.event' && JSON.stringify(frame).includes('new-1'), 'the new stream live');
  });

  it('catches a session that opens right after a Companion reconnect up once the Companion\'s replay shows the stream goes on', async () => {
    const { workspaceId, device, companion: peer } = await onlineWorkspace();
    const first = await openBrowser(workspaceId);
    first.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    for (const sequence of [0, 1, 2]) peer.send(frames.event(workspaceId, sequence));
    await first.waitFor((frame) => frame.type === 'runtime.event', 'the stream', 3);
    first.send(frames.ack(workspaceId, 1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack' && frame.throughRelaySequence === 1, 'the ACK of 1');
    const again = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential)));
    await peer.closed;
    const joiner = await openBrowser(workspaceId);
    joiner.send(frames.ack(workspaceId, -1));
    await again.waitFor((frame) => frame.type === 'runtime.ack', 'the joiner\'s ACK');
    // The reconnected Companion replays what was not acknowledged (byte-identical): the same stream.
    again.send(frames.event(workspaceId, 2));
    const caught = await joiner.waitFor((frame) => frame.type === 'runtime.event', 'the catch-up', 3);
    expect(caught).toEqual([0, 1, 2].map((sequence) => frames.event(workspaceId, sequence)));
    again.send(frames.event(workspaceId, 3));
    await joiner.waitFor((frame) => frame.type === 'runtime.event', 'the live frame', 4);
    expect(joiner.ofType('runtime.event').map((frame) => frame.relaySequence)).toEqual([0, 1, 2, 3]);
  });

  it('does not deliver a Companion replay twice to a session that already has the frames', async () => {
    const { workspaceId, device, companion: peer } = await onlineWorkspace();
    const session = await openBrowser(workspaceId);
    session.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK');
    for (const sequence of [0, 1, 2]) peer.send(frames.event(workspaceId, sequence));
    await session.waitFor((frame) => frame.type === 'runtime.event', 'the events', 3);
    // The Companion reconnects (same stream) and replays what was not acknowledged, then goes on.
    const again = track(await companion(gateway.wsUrl, frames.deviceConnect(device.deviceId, device.credential)));
    await peer.closed;
    for (const sequence of [1, 2, 3]) again.send(frames.event(workspaceId, sequence));
    await session.waitFor((frame) => frame.type === 'runtime.event', 'the next event', 4);
    expect(session.ofType('runtime.event').map((frame) => frame['relaySequence'])).toEqual([0, 1, 2, 3]);
  });
});

describe('metrics', () => {
  it('serves Prometheus text at /metrics on the operator port (loopback), never on the public data port', async () => {
    const hidden = await fetch(`${gateway.httpUrl}/metrics`);
    expect(hidden.status).toBe(404);
    expect(gateway.gateway.operatorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const probe of ['/healthz', '/readyz']) {
      expect((await fetch(`${gateway.gateway.operatorUrl}${probe}`)).status).toBe(200);
      expect((await fetch(`${gateway.httpUrl}${probe}`)).status).toBe(200);
    }
    const response = await fetch(`${gateway.gateway.operatorUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('# TYPE relay_connections gauge');
    expect(text).toMatch(/relay_connections\{socket="browser"\} \d+/);
    expect(text).toMatch(/relay_frames_total\{direction="inbound",type="runtime.request"\} \d+/);
    expect(text).toMatch(/relay_rejections_total\{code="SESSION_TICKET_INVALID",socket="browser"\} \d+/);
    expect(text).toMatch(/relay_interactions_redelivered_total \d+/);
    expect(text).toMatch(/relay_catchup_frames_total \d+/);
    // prom-client's process metrics, and the backbone's lags read at the scrape.
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^outbox_backlog_rows \d+$/m);
    expect(text).toMatch(/^projection_lag_events\{projection="[\w-]+"\} \d+$/m);
    expect(text).toMatch(/^bus_consumer_lag_messages\{topic="relay\.[\w.-]+",partition="\d+"\} \d+$/m);
  });
});
