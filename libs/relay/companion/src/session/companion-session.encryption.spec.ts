/**
 * Cipher-bound workspaces (§7) with the real x25519-hkdf-sha256-aes-256-gcm profile of
 * @trustmesh/relay-encryption: the browser side holds its own cipher, keys never touch the session's
 * transport.
 */
import { createWorkspaceCipher, EncryptionError, generateRelayKeyPair, type WorkspaceCipher } from '@trustmesh/relay-encryption';

import type { CompanionCipher } from './companion-cipher.port';
import { approvalRequest, rawEvent, SENTINEL, STREAM, THREAD, uuid, WORKSPACE, OTHER_WORKSPACE } from '../testing/scripted-runtime';
import { Harness } from '../testing/session-harness';

let companionCipher: WorkspaceCipher;
let browserCipher: WorkspaceCipher;

beforeAll(async () => {
  const [companion, browser] = await Promise.all([generateRelayKeyPair(), generateRelayKeyPair()]);
  [companionCipher, browserCipher] = await Promise.all([
    createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: companion.privateKey, peerPublicKey: browser.publicKey }),
    createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: browser.privateKey, peerPublicKey: companion.publicKey }),
  ]);
});

const started = () => Harness.started({ cipher: companionCipher });

async function sendSealed(harness: Harness, method: string, params: unknown, requestId = harness.nextRequestId()) {
  const envelope = await browserCipher.seal(harness.requestFrame(method, params, requestId) as never);
  const before = harness.sent.length;
  const result = await harness.session.receive(JSON.stringify(envelope), harness.generation);
  return { result, out: harness.sent.slice(before).map((sent) => sent.frame), envelope };
}

const open = (frame: Record<string, unknown>) => browserCipher.open(frame) as Promise<Record<string, any>>;

describe('a cipher-bound workspace (§7)', () => {
  it('opens an encrypted request and seals the response', async () => {
    const harness = await started();
    const { result, out } = await sendSealed(harness, 'thread.list', { limit: 5 });
    expect(result).toEqual(expect.objectContaining({ kind: 'response', errorCode: null, sent: true }));
    expect(out).toHaveLength(1);
    expect(out[0]).toEqual(expect.objectContaining({ type: 'runtime.encrypted', payloadKind: 'response', workspaceId: WORKSPACE }));
    expect(JSON.stringify(out[0])).not.toContain('Release');
    const inner = await open(out[0]!);
    expect(inner).toEqual(expect.objectContaining({ type: 'runtime.response', result: expect.objectContaining({ nextCursor: '2' }) }));
  });

  it('refuses a plaintext request with RELAY_ENCRYPTION_REQUIRED (plaintext, so a cipher-less peer can read it; never cached)', async () => {
    const harness = await started();
    const requestId = uuid(10);
    const { response } = await harness.request('thread.create', { requestId: uuid(11), title: 'x' }, { requestId });
    expect(response).toEqual(expect.objectContaining({ type: 'runtime.response', error: expect.objectContaining({ code: 'RELAY_ENCRYPTION_REQUIRED' }) }));
    expect(harness.runtime.calls).toEqual([]);
    const { out } = await sendSealed(harness, 'thread.create', { requestId: uuid(11), title: 'y' }, requestId);
    expect((await open(out[0]!))['result'].thread.title).toBe('y');
  });

  it('answers a bad envelope with ENCRYPTED_PAYLOAD_INVALID, itself encrypted', async () => {
    const harness = await started();
    const envelope = await browserCipher.seal(harness.requestFrame('thread.list', { limit: 5 }) as never);
    const tampered = { ...envelope, ciphertext: `${envelope.ciphertext.slice(0, -4)}AAAA` };
    const result = await harness.session.receive(JSON.stringify(tampered), harness.generation);
    expect(result).toEqual(expect.objectContaining({ kind: 'response', errorCode: 'ENCRYPTED_PAYLOAD_INVALID' }));
    const sent = harness.sent.at(-1)!.frame;
    expect(sent).toEqual(expect.objectContaining({ type: 'runtime.encrypted', payloadKind: 'response', requestId: envelope.requestId }));
    expect((await open(sent))['error'].code).toBe('ENCRYPTED_PAYLOAD_INVALID');
  });

  it('opens a recorded envelope once: a replay is dropped unanswered, also after a Companion restart', async () => {
    const [companionKeys, browserKeys] = await Promise.all([generateRelayKeyPair(), generateRelayKeyPair()]);
    const companionSide = (replayProtection?: { now: () => number }) =>
      createWorkspaceCipher({
        workspaceId: WORKSPACE,
        privateKey: companionKeys.privateKey,
        peerPublicKey: browserKeys.publicKey,
        role: 'companion',
        ...(replayProtection ? { replayProtection } : {}),
      });
    const browserSide = await createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: browserKeys.privateKey, peerPublicKey: companionKeys.publicKey, role: 'browser' });
    const harness = await Harness.started({ cipher: await companionSide() });
    const recorded = await browserSide.seal(harness.requestFrame('thread.create', { requestId: uuid(21), title: 'once' }, uuid(20)) as never);
    expect(await harness.session.receive(JSON.stringify(recorded), harness.generation)).toEqual(expect.objectContaining({ kind: 'response', errorCode: null }));
    await harness.flush();
    const callsAfterFirst = harness.runtime.calls.length;
    const sentAfterFirst = harness.sent.length;
    // The relay sends the recorded envelope again: dropped, no second call, no answer that could settle the original.
    expect(await harness.session.receive(JSON.stringify(recorded), harness.generation)).toEqual({ kind: 'dropped', reason: 'ENVELOPE_REPLAYED' });
    await harness.flush();
    expect(harness.runtime.calls.length).toBe(callsAfterFirst);
    expect(harness.sent.length).toBe(sentAfterFirst);

    // The Companion restarts (a new process: a new cipher, nothing remembered, ten minutes later).
    const restarted = await Harness.started({ cipher: await companionSide({ now: () => Date.now() + 10 * 60_000 }) });
    expect(await restarted.session.receive(JSON.stringify(recorded), restarted.generation)).toEqual({ kind: 'dropped', reason: 'ENVELOPE_REPLAYED' });
    await restarted.flush();
    expect(restarted.runtime.calls).toEqual([]);
    expect(restarted.sent).toEqual([]);
  });

  it('ignores envelopes that are not requests, lack a requestId, or name another workspace', async () => {
    const harness = await started();
    const base = { type: 'runtime.encrypted', workspaceId: WORKSPACE, envelopeId: uuid(1), algorithm: 'x25519-hkdf-sha256-aes-256-gcm', nonce: 'bm9uY2U', ciphertext: 'Y2lwaGVy' };
    const receive = (frame: object) => harness.session.receive(JSON.stringify(frame), harness.generation);
    expect(await receive({ ...base, payloadKind: 'event', relaySequence: 0 })).toEqual({ kind: 'dropped', reason: 'ENVELOPE_NOT_A_REQUEST' });
    expect(await receive({ ...base, payloadKind: 'request' })).toEqual({ kind: 'dropped', reason: 'ENVELOPE_NOT_A_REQUEST' });
    expect(await receive({ ...base, payloadKind: 'request', requestId: uuid(2), workspaceId: OTHER_WORKSPACE })).toEqual({ kind: 'dropped', reason: 'ENVELOPE_FOREIGN_WORKSPACE' });
    await harness.flush();
    expect(harness.sent).toEqual([]);
  });

  it('drops an inner request whose workspaceId or requestId differs from its envelope', async () => {
    const inner = { type: 'runtime.request', requestId: uuid(3), workspaceId: WORKSPACE, method: 'thread.list', params: { limit: 1 } };
    const lying: CompanionCipher = { workspaceId: WORKSPACE, seal: companionCipher.seal.bind(companionCipher), open: async () => inner };
    const harness = await Harness.started({ cipher: lying });
    const envelope = { type: 'runtime.encrypted', workspaceId: WORKSPACE, envelopeId: uuid(1), payloadKind: 'request', requestId: uuid(4), algorithm: 'a', nonce: 'n', ciphertext: 'c' };
    expect(await harness.session.receive(JSON.stringify(envelope), harness.generation)).toEqual({ kind: 'dropped', reason: 'ENVELOPE_IDENTITY_MISMATCH' });
    expect(harness.runtime.calls).toEqual([]);
  });

  it('answers COMPANION_ERROR, unexecuted, when the cipher cannot make an opening durable (ENCRYPTION_STATE_UNAVAILABLE)', async () => {
    const journalDown: CompanionCipher = {
      workspaceId: WORKSPACE,
      seal: companionCipher.seal.bind(companionCipher),
      open: () => Promise.reject(new EncryptionError('ENCRYPTION_STATE_UNAVAILABLE')),
    };
    const harness = await Harness.started({ cipher: journalDown });
    const { result, out, envelope } = await sendSealed(harness, 'thread.create', { requestId: uuid(12), title: 'x' });
    expect(result).toEqual(expect.objectContaining({ kind: 'response', errorCode: 'COMPANION_ERROR' }));
    expect(out[0]).toEqual(expect.objectContaining({ type: 'runtime.encrypted', payloadKind: 'response', requestId: envelope.requestId }));
    expect(harness.runtime.calls).toEqual([]);
  });

  it('seals sequenced frames as event/interaction envelopes; they advance advertisedThrough; gaps stay plaintext', async () => {
    const harness = await Harness.started({ cipher: companionCipher, limits: { replayFrames: 2 } });
    harness.runtime.emit(rawEvent({ type: 'message.delta', streamId: STREAM, delta: 'hello' }));
    harness.runtime.raise(approvalRequest());
    await harness.flush();
    const [event, interaction] = harness.sent.map((sent) => sent.frame);
    expect(event).toEqual(expect.objectContaining({ type: 'runtime.encrypted', payloadKind: 'event', relaySequence: 0 }));
    expect(interaction).toEqual(expect.objectContaining({ type: 'runtime.encrypted', payloadKind: 'interaction', relaySequence: 1 }));
    expect((await open(event!))['event'].event.delta).toBe('hello');
    expect((await open(interaction!))['projection'].explanation).toBe('Deploy to prod');
    expect(await harness.ack(1)).toEqual({ kind: 'ack', disposition: 'advance' });
    harness.session.disconnect(harness.generation);
    for (let index = 0; index < 3; index += 1) harness.runtime.emit(rawEvent({ type: 'message.delta', streamId: STREAM, delta: `d${index}` }));
    const second = harness.connect();
    await harness.flush();
    const replayed = harness.sent.filter((sent) => sent.generation === second).map((sent) => sent.frame);
    expect(replayed[0]).toEqual(expect.objectContaining({ type: 'runtime.gap', fromRelaySequence: 2, throughRelaySequence: 2 }));
    expect(replayed.slice(1).map((frame) => [frame.type, frame['relaySequence']])).toEqual([
      ['runtime.encrypted', 3],
      ['runtime.encrypted', 4],
    ]);
    expect(harness.sent.map((sent) => sent.text).join()).not.toContain(SENTINEL);
  });

  it('runs an encrypted interaction candidate end to end', async () => {
    const harness = await started();
    harness.runtime.raise(approvalRequest());
    await harness.flush();
    const { out } = await sendSealed(harness, 'interaction.candidate', {
      interactionId: uuid(900),
      threadId: THREAD,
      turnId: approvalRequest().turnId,
      method: 'approval.request',
      candidate: { decision: 'approve' },
    });
    const inner = await Promise.all(out.map((frame) => open(frame)));
    expect(inner.map((frame) => frame['type'])).toEqual(['interaction.resolved', 'runtime.response']);
    expect(inner[1]!['result']).toEqual({ accepted: true });
  });

  it('refuses a cipher bound to another workspace', () => {
    expect(() => new Harness({ cipher: { ...companionCipher, workspaceId: OTHER_WORKSPACE, seal: companionCipher.seal, open: companionCipher.open } })).toThrow('another workspace');
  });
});
