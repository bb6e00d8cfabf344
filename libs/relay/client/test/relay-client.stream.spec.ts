/**
 * The Workspace sequence end to end against a scripted relay on a real WebSocket server: ACKs, live UI
 * events, hole and gap recovery through snapshots, resets after a Companion restart, interactions and
 * their candidates, and an encrypted session (BEHAVIOUR.md §6, §7, §8).
 */
import { createWorkspaceCipher, generateRelayKeyPair, type WorkspaceCipher } from '@trustmesh/relay-encryption';

import { collect, nextEvent, outcome, useScriptedRelay } from './client-harness';
import { approvalRequest, gap, interactionTerminal, runtimeEvent, snapshotResult, threadSummary, userInputRequest, uuid, workspaceStatus, WORKSPACE } from './frames';
import type { RelayConnection } from './scripted-relay';

const { connected, reconnect } = useScriptedRelay();

const respond = (requestId: string, result: unknown) => ({ type: 'runtime.response', requestId, workspaceId: WORKSPACE, result });

/** Opens a thread through the relay so the client keeps it open (and snapshots it on recovery). */
async function openThread(client: Awaited<ReturnType<typeof connected>>['client'], connection: RelayConnection, threadId: string) {
  const opening = client.threads.open(threadId);
  const request = await connection.nextRequest('thread.open');
  connection.send(respond(request.requestId, snapshotResult(threadId)));
  await opening;
}

/** Answers the next snapshot request (a recovery) with a snapshot of `threadId`. */
async function answerSnapshot(connection: RelayConnection, threadId: string, title = 'A thread') {
  const request = await connection.nextRequest('thread.snapshot');
  expect(request.params).toEqual({ threadId, limit: 100 });
  connection.send(respond(request.requestId, snapshotResult(threadId, { thread: { id: threadId, title, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', messageCount: 1 } })));
}

describe('RelayClient stream', () => {
  it('applies frames in order, ACKs each one, and emits live message, reasoning, tool and turn events', async () => {
    const { client, connection } = await connected();
    const threadId = uuid();
    const turnId = uuid();
    const streamId = uuid();
    const messages = collect(client, 'message');
    const tools = collect(client, 'tool');
    const turns = collect(client, 'turn');
    const reasoning = collect(client, 'reasoning');
    connection.send(runtimeEvent(0, threadId, { type: 'turn.started' }, turnId));
    connection.send(runtimeEvent(1, threadId, { type: 'message.started', streamId }, turnId));
    connection.send(runtimeEvent(2, threadId, { type: 'message.delta', streamId, delta: 'Hel' }, turnId));
    connection.send(runtimeEvent(3, threadId, { type: 'message.delta', streamId, delta: 'lo' }, turnId));
    connection.send(runtimeEvent(4, threadId, { type: 'reasoning.summary.delta', reasoningId: uuid(), delta: 'Thinking' }, turnId));
    connection.send(runtimeEvent(5, threadId, { type: 'tool.started', toolCallId: 'call-1', agentName: 'builder', toolName: 'shell' }, turnId));
    connection.send(
      runtimeEvent(6, threadId, { type: 'tool.completed', toolCallId: 'call-1', agentName: 'builder', toolName: 'shell', outcome: { kind: 'success' }, operationId: uuid() }, turnId),
    );
    connection.send(runtimeEvent(7, threadId, { type: 'message.completed', streamId, text: 'Hello' }, turnId));
    connection.send(runtimeEvent(8, threadId, { type: 'turn.completed' }, turnId));
    const acks = await connection.acksThrough(8);
    // Coalesced per turn of the event loop: ascending, ending at the last frame.
    expect(acks.at(-1)).toBe(8);
    expect([...acks].sort((a, b) => a - b)).toEqual(acks);
    expect(new Set(acks).size).toBe(acks.length);
    expect(client.cursor).toBe(8);
    expect(messages.map((message) => [message.text, message.completed])).toEqual([
      ['', false],
      ['Hel', false],
      ['Hello', false],
      ['Hello', true],
    ]);
    expect(reasoning[0]).toMatchObject({ threadId, turnId, text: 'Thinking' });
    expect(tools.map((tool) => tool.status)).toEqual(['started', 'completed']);
    expect(tools[1]).toMatchObject({ outcome: { kind: 'success' }, operationId: expect.any(String) });
    expect(turns.map((turn) => turn.state)).toEqual(['started', 'completed']);
  });

  it('recovers a self-detected hole by snapshotting every open thread, then drains the buffered frames', async () => {
    const { client, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    const snapshots = collect(client, 'snapshot');
    connection.send(runtimeEvent(0, threadId, { type: 'turn.started' }, uuid()));
    expect((await connection.nextAck()).throughRelaySequence).toBe(0);
    connection.send(runtimeEvent(3, threadId, { type: 'capabilities.changed' }));
    connection.send(runtimeEvent(4, threadId, { type: 'capabilities.changed' }));
    await answerSnapshot(connection, threadId, 'Recovered');
    // The recovery (cursor 2) and the buffered frames it drains (3, 4) happen in one turn: one ACK.
    expect((await connection.nextAck()).throughRelaySequence).toBe(4);
    expect(snapshots).toEqual([expect.objectContaining({ threadId, reason: 'recovery' })]);
    expect(client.openThreadSnapshots().get(threadId)?.thread.title).toBe('Recovered');
  });

  it('ACKs frames applied in the same turn of the event loop once, with the highest contiguous sequence', async () => {
    const { client, clock, connection } = await connected();
    const threadId = uuid();
    const applied = collect(client, 'frame');
    clock.holdDeferred = true;
    for (let sequence = 0; sequence < 5; sequence += 1) connection.send(runtimeEvent(sequence, threadId, { type: 'capabilities.changed' }));
    await nextEvent(client, 'frame', () => applied.length === 5);
    clock.runDeferred();
    expect(await connection.nextAck()).toEqual({ type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: 4 });
    // The next turn's frames get their own ACK, in order.
    connection.send(runtimeEvent(5, threadId, { type: 'capabilities.changed' }));
    connection.send(runtimeEvent(6, threadId, { type: 'capabilities.changed' }));
    await nextEvent(client, 'frame', () => applied.length === 7);
    clock.runDeferred();
    expect((await connection.nextAck()).throughRelaySequence).toBe(6);
    expect(applied.map((frame) => frame.relaySequence)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('still ACKs after every recovery, also when no frame follows it', async () => {
    const { client, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    connection.send(gap(0, 9));
    await answerSnapshot(connection, threadId);
    expect((await connection.nextAck()).throughRelaySequence).toBe(9);
    connection.send(runtimeEvent(12, threadId, { type: 'capabilities.changed' }));
    await answerSnapshot(connection, threadId);
    expect((await connection.acksThrough(12)).at(-1)).toBe(12);
    connection.send(gap(13, 20));
    await answerSnapshot(connection, threadId);
    expect((await connection.nextAck()).throughRelaySequence).toBe(20);
    expect(client.cursor).toBe(20);
  });

  it('recovers through a runtime.gap and reports it', async () => {
    const { client, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    const gaps = collect(client, 'gap');
    connection.send(gap(0, 41));
    await answerSnapshot(connection, threadId);
    expect((await connection.nextAck()).throughRelaySequence).toBe(41);
    connection.send(runtimeEvent(42, threadId, { type: 'capabilities.changed' }));
    expect((await connection.nextAck()).throughRelaySequence).toBe(42);
    expect(gaps).toEqual([{ from: 0, through: 41, inverted: false }]);
  });

  it('closes with 4012 when a recovery snapshot fails, and reconnects', async () => {
    const { client, clock, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    connection.send(gap(0, 5));
    const request = await connection.nextRequest('thread.snapshot');
    connection.send({ type: 'runtime.response', requestId: request.requestId, workspaceId: WORKSPACE, error: { code: 'COMPANION_ERROR', message: 'x', retryable: false } });
    expect(await connection.closed).toEqual({ code: 4012 });
    await reconnect(client, clock);
  });

  it('detects a Companion restart after reconnecting (stream reset) and refreshes open threads', async () => {
    const { client, clock, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    connection.send(runtimeEvent(0, threadId, { type: 'capabilities.changed' }));
    connection.send(runtimeEvent(1, threadId, { type: 'capabilities.changed' }));
    await connection.acksThrough(1);
    connection.close();
    const resets = collect(client, 'reset');
    const second = await reconnect(client, clock);
    expect((await second.nextAck()).throughRelaySequence).toBe(1);
    second.send(runtimeEvent(0, threadId, { type: 'turn.started' }, uuid()));
    // Applied at once (new epoch, cursor −1 → 0); the refresh snapshot goes out after the ACK.
    expect((await second.nextAck()).throughRelaySequence).toBe(0);
    await answerSnapshot(second, threadId);
    await nextEvent(client, 'snapshot', (event) => event.reason === 'reset');
    expect(resets).toEqual([{ epoch: 1 }]);
    expect(client.epoch).toBe(1);
  });

  it('reports an open thread whose refresh after a reset fails as snapshot-failed, and keeps the stream going', async () => {
    const { client, clock, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    connection.send(runtimeEvent(0, threadId, { type: 'capabilities.changed' }));
    await connection.nextAck();
    connection.close();
    const failed = nextEvent(client, 'snapshot-failed');
    const second = await reconnect(client, clock);
    await second.nextAck();
    // The restarted Companion no longer has the thread: its refresh is refused.
    second.send(runtimeEvent(0, uuid(), { type: 'capabilities.changed' }));
    expect((await second.nextAck()).throughRelaySequence).toBe(0);
    const request = await second.nextRequest('thread.snapshot');
    second.send({ type: 'runtime.response', requestId: request.requestId, workspaceId: WORKSPACE, error: { code: 'THREAD_NOT_FOUND', message: 'x', retryable: false } });
    expect(await failed).toMatchObject({ threadId, reason: 'reset', error: { kind: 'remote', code: 'THREAD_NOT_FOUND' } });
    second.send(runtimeEvent(1, uuid(), { type: 'capabilities.changed' }));
    expect((await second.nextAck()).throughRelaySequence).toBe(1);
  });

  it('reports the open thread whose recovery snapshot failed before closing with 4012, and stops keeping it open if refused for good', async () => {
    const { client, clock, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    const failed = nextEvent(client, 'snapshot-failed');
    connection.send(gap(0, 5));
    const request = await connection.nextRequest('thread.snapshot');
    connection.send({ type: 'runtime.response', requestId: request.requestId, workspaceId: WORKSPACE, error: { code: 'COMPANION_ERROR', message: 'x', retryable: false } });
    expect(await failed).toMatchObject({ threadId, reason: 'recovery', error: { kind: 'remote', code: 'COMPANION_ERROR' } });
    expect(await connection.closed).toEqual({ code: 4012 });
    // Refused for good (not retryable): the thread is no longer kept open, so the next recovery succeeds
    // instead of failing on every reconnect.
    expect(client.openThreadSnapshots().has(threadId)).toBe(false);
    const second = await reconnect(client, clock);
    await second.nextAck();
    second.send(gap(0, 5));
    expect((await second.nextAck()).throughRelaySequence).toBe(5);
    expect(client.cursor).toBe(5);
  });

  it('keeps an open thread whose recovery snapshot failed for a retryable reason, and snapshots it again', async () => {
    const { client, clock, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    connection.send(gap(0, 5));
    const request = await connection.nextRequest('thread.snapshot');
    connection.send({ type: 'runtime.response', requestId: request.requestId, workspaceId: WORKSPACE, error: { code: 'RUNTIME_BUSY', message: 'x', retryable: true } });
    expect(await connection.closed).toEqual({ code: 4012 });
    expect(client.openThreadSnapshots().has(threadId)).toBe(true);
    const second = await reconnect(client, clock);
    await second.nextAck();
    second.send(gap(0, 5));
    await answerSnapshot(second, threadId);
    expect((await second.nextAck()).throughRelaySequence).toBe(5);
  });

  it('offline→online refreshes open threads and arms reset detection', async () => {
    const { client, connection } = await connected();
    const threadId = uuid();
    await openThread(client, connection, threadId);
    connection.send(runtimeEvent(0, threadId, { type: 'capabilities.changed' }));
    await connection.nextAck();
    connection.send(workspaceStatus('offline'));
    connection.send(workspaceStatus('online'));
    await answerSnapshot(connection, threadId);
    connection.send(runtimeEvent(0, threadId, { type: 'capabilities.changed' }));
    expect((await connection.nextAck()).throughRelaySequence).toBe(0);
    await answerSnapshot(connection, threadId); // the reset refresh
    expect(client.epoch).toBe(1);
  });

  it('tracks an approval, answers it with a candidate built from the request, and settles on interaction.resolved', async () => {
    const { client, connection } = await connected();
    const ids = { interactionId: uuid(), threadId: uuid(), turnId: uuid() };
    const changes = collect(client, 'interaction');
    const request = approvalRequest(0, ids);
    connection.send(request);
    await connection.nextAck();
    expect(client.pendingInteractions()).toEqual([expect.objectContaining({ interactionId: ids.interactionId, state: 'pending', method: 'approval.request' })]);

    const approving = client.interactions.approve(ids.interactionId);
    const candidate = await connection.nextRequest('interaction.candidate');
    expect(candidate.params).toEqual({ ...ids, method: 'approval.request', candidate: { decision: 'approve' } });
    expect(await outcome(client.interactions.approve(ids.interactionId))).toMatchObject({ ok: false, error: { kind: 'usage', code: 'INTERACTION_NOT_PENDING' } });
    connection.send(respond(candidate.requestId, { accepted: true }));
    expect(await approving).toEqual({ accepted: true });
    connection.send(request); // a redelivery: duplicate rule (sequence 0 ≤ cursor)
    connection.send(interactionTerminal('interaction.resolved', 1, request));
    await nextEvent(client, 'interaction', (change) => change.change === 'resolved');
    expect(changes.map((change) => change.change)).toEqual(['pending', 'responding', 'resolved']);
    expect(client.pendingInteractions()).toEqual([]);
  });

  it('offers an interaction again when its candidate fails, and reports conflicting or unknown frames', async () => {
    const { client, connection } = await connected();
    const ids = { interactionId: uuid(), threadId: uuid(), turnId: uuid() };
    const problems = collect(client, 'interaction-problem');
    const request = approvalRequest(0, ids);
    connection.send(request);
    await connection.nextAck();
    const rejecting = client.interactions.reject(ids.interactionId, 'Not now');
    const candidate = await connection.nextRequest('interaction.candidate');
    expect(candidate.params['candidate']).toEqual({ decision: 'reject', reason: 'Not now' });
    connection.send({ type: 'runtime.response', requestId: candidate.requestId, workspaceId: WORKSPACE, error: { code: 'COMPANION_ERROR', message: 'x', retryable: false } });
    expect(await outcome(rejecting)).toMatchObject({ ok: false, error: { kind: 'remote', code: 'COMPANION_ERROR' } });
    expect(client.pendingInteractions()[0]?.state).toBe('pending');

    connection.send({ ...request, relaySequence: 1, expiresAt: '2998-01-01T00:00:00Z' });
    connection.send(interactionTerminal('interaction.cancelled', 2, { ...ids, interactionId: uuid(), method: 'approval.request' }));
    connection.send(interactionTerminal('interaction.cancelled', 3, request));
    connection.send({ ...request, relaySequence: 4 });
    await nextEvent(client, 'interaction-problem', (problem) => problem.code === 'INTERACTION_AFTER_TERMINAL');
    expect(problems.map((problem) => problem.code)).toEqual(['INTERACTION_METADATA_CONFLICT', 'INTERACTION_TERMINAL_UNKNOWN', 'INTERACTION_AFTER_TERMINAL']);
  });

  it('normalises user input against the form before sending; invalid answers never leave the client', async () => {
    const { client, clock, connection } = await connected();
    const ids = { interactionId: uuid(), threadId: uuid(), turnId: uuid() };
    connection.send(userInputRequest(0, ids, new Date(clock.now() + 60_000).toISOString()));
    await connection.nextAck();
    expect(await outcome(client.interactions.submit(ids.interactionId, { region: 'north', replicas: 2 }))).toMatchObject({
      ok: false,
      error: { kind: 'usage', code: 'INVALID_REQUEST' },
    });
    expect(client.pendingInteractions()[0]?.state).toBe('pending');
    const submitting = client.interactions.submit(ids.interactionId, [
      { id: 'note', value: 'ship it' },
      { id: 'replicas', value: 2 },
      { id: 'region', value: 'eu' },
    ]);
    const candidate = await connection.nextRequest('interaction.candidate');
    expect(candidate.params['candidate']).toEqual({
      status: 'submitted',
      values: [
        { id: 'region', value: 'eu' },
        { id: 'replicas', value: 2 },
        { id: 'note', value: 'ship it' },
      ],
    });
    connection.send(respond(candidate.requestId, { accepted: true }));
    await submitting;
  });

  it('answers without a connection fail CONNECTION_UNAVAILABLE, retryable only while the interaction is live', async () => {
    const { client, clock, connection } = await connected();
    const ids = { interactionId: uuid(), threadId: uuid(), turnId: uuid() };
    connection.send(approvalRequest(0, ids, new Date(clock.now() + 60_000).toISOString()));
    await connection.nextAck();
    connection.close();
    await nextEvent(client, 'state', (change) => change.state === 'waiting');
    expect(await outcome(client.interactions.approve(ids.interactionId))).toMatchObject({ ok: false, error: { code: 'CONNECTION_UNAVAILABLE', retryable: true } });
    clock.advance(60_000);
    expect(await outcome(client.interactions.approve(ids.interactionId))).toMatchObject({ ok: false, error: { code: 'CONNECTION_UNAVAILABLE', retryable: false } });
  });

  it('stops offering an interaction after its expiresAt', async () => {
    const { client, clock, connection } = await connected();
    const ids = { interactionId: uuid(), threadId: uuid(), turnId: uuid() };
    connection.send(approvalRequest(0, ids, new Date(clock.now() + 10_000).toISOString()));
    await connection.nextAck();
    const expired = nextEvent(client, 'interaction', (change) => change.change === 'expired');
    clock.advance(10_000);
    await expired;
    expect(client.pendingInteractions()).toEqual([]);
    expect(await outcome(client.interactions.approve(ids.interactionId))).toMatchObject({ ok: false, error: { code: 'INTERACTION_EXPIRED' } });
  });
});

describe('RelayClient with end-to-end encryption', () => {
  let browserCipher: WorkspaceCipher;
  let companionCipher: WorkspaceCipher;
  beforeAll(async () => {
    const browserKeys = await generateRelayKeyPair();
    const companionKeys = await generateRelayKeyPair();
    browserCipher = await createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: browserKeys.privateKey, peerPublicKey: companionKeys.publicKey });
    companionCipher = await createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: companionKeys.privateKey, peerPublicKey: browserKeys.publicKey });
  });

  it('seals requests, opens sealed responses and events, and keeps ACKs in plaintext', async () => {
    const { client, connection } = await connected({ cipher: browserCipher });
    const threadId = uuid();
    const listing = client.threads.list();
    const envelope = await connection.nextOf('runtime.encrypted');
    expect(envelope).toMatchObject({ payloadKind: 'request', algorithm: 'x25519-hkdf-sha256-aes-256-gcm' });
    expect(JSON.stringify(envelope)).not.toContain('thread.list');
    const inner = (await companionCipher.open(envelope)) as { requestId: string; method: string };
    expect(inner.method).toBe('thread.list');
    connection.send(await companionCipher.seal({ type: 'runtime.response', requestId: inner.requestId, workspaceId: WORKSPACE, result: { items: [], nextCursor: null } }));
    expect(await listing).toEqual({ items: [], nextCursor: null });

    connection.send(await companionCipher.seal(runtimeEvent(0, threadId, { type: 'turn.started' }, uuid())));
    expect(await connection.nextAck()).toEqual({ type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: 0 });
  });

  it('re-sends a pending mutation in a fresh envelope (the same inner frame), which a replay-guarded Companion opens', async () => {
    const keys = { browser: await generateRelayKeyPair(), companion: await generateRelayKeyPair() };
    const browserSide = await createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: keys.browser.privateKey, peerPublicKey: keys.companion.publicKey, role: 'browser' });
    const companionSide = await createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: keys.companion.privateKey, peerPublicKey: keys.browser.publicKey, role: 'companion' });
    const { client, clock, connection } = await connected({ cipher: browserSide });
    const threadId = uuid();
    const renaming = client.threads.rename(threadId, 'New title');
    const first = await connection.nextOf('runtime.encrypted');
    const original = (await companionSide.open(first)) as { requestId: string };
    connection.close();
    const second = await reconnect(client, clock);
    const resent = await second.nextOf('runtime.encrypted');
    expect(resent['envelopeId']).not.toBe(first['envelopeId']);
    // The Companion opened the first envelope; the re-send is a new one it opens too, with the same request.
    expect(await companionSide.open(resent)).toEqual(original);
    await expect(companionSide.open(first)).rejects.toMatchObject({ code: 'ENCRYPTED_PAYLOAD_REPLAYED' });
    second.send(await companionSide.seal({ type: 'runtime.response', requestId: original.requestId, workspaceId: WORKSPACE, result: { thread: threadSummary(threadId, 'New title') } }));
    expect(await renaming).toEqual({ thread: threadSummary(threadId, 'New title') });
  });

  it('treats plaintext sequenced frames and undecryptable envelopes as protocol errors (4002)', async () => {
    const { client, clock, connection } = await connected({ cipher: browserCipher });
    connection.send(runtimeEvent(0, uuid(), { type: 'turn.started' }, uuid()));
    expect(await connection.closed).toEqual({ code: 4002 });
    const second = await reconnect(client, clock);
    const sealed = await companionCipher.seal(runtimeEvent(0, uuid(), { type: 'turn.started' }, uuid()));
    second.send({ ...sealed, relaySequence: 1 });
    expect(await second.closed).toEqual({ code: 4002 });
  });
});
