import { canonicalJson, validateWireFrame, FrameReader, type Wire11, type Wire12 } from '@trustmesh/relay-protocol';

import {
  createWorkspaceCipher,
  decodeBase64Url,
  E2EE_ALGORITHM,
  EncryptionError,
  encodeBase64Url,
  exportPrivateKey,
  exportPublicKey,
  generateRelayKeyPair,
  importPublicKey,
  type EncryptedEnvelope,
  type SealableFrame,
  type WorkspaceCipher,
} from './index';

const WORKSPACE = '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c2d';
const OTHER_WORKSPACE = '0190c1d2-3e4f-7a5b-8c6d-000000000000';
const REQUEST_ID = '0190c1d2-3e4f-7a5b-9c6d-7e8f9a0b1c2e';
const THREAD = '0190c1d2-3e4f-7a5b-ac6d-7e8f9a0b1c2f';
const TURN = '0190c1d2-3e4f-7a5b-bc6d-7e8f9a0b1c30';
const INTERACTION = '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c31';

const request: Wire12.RuntimeRequestFrame = {
  type: 'runtime.request',
  requestId: REQUEST_ID,
  workspaceId: WORKSPACE,
  method: 'thread.open',
  params: { threadId: THREAD },
};
const response: Wire12.RuntimeResponseFrame = { type: 'runtime.response', requestId: REQUEST_ID, workspaceId: WORKSPACE, result: { accepted: true } };
const event: Wire12.RuntimeEventFrame = {
  type: 'runtime.event',
  workspaceId: WORKSPACE,
  relaySequence: 7,
  event: {
    protocolVersion: '1.1',
    runtimeInstanceId: '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c40',
    sequence: 3,
    timestamp: '2026-01-01T00:00:00Z',
    threadId: THREAD,
    turnId: TURN,
    event: { type: 'message.delta', streamId: '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c43', delta: 'héllo ✓' },
  },
};
const interactionRequest: Wire11.InteractionRequestFrame = {
  type: 'interaction.request',
  workspaceId: WORKSPACE,
  relaySequence: 8,
  interactionId: INTERACTION,
  threadId: THREAD,
  turnId: TURN,
  expiresAt: '2026-01-01T00:05:00Z',
  sensitivity: 'normal',
  method: 'approval.request',
  projection: { approvalId: '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c41', agentName: 'builder', toolName: 'shell' },
};
const interactionResolved: Wire12.InteractionResolvedFrame = {
  type: 'interaction.resolved',
  workspaceId: WORKSPACE,
  relaySequence: 9,
  interactionId: INTERACTION,
  threadId: THREAD,
  turnId: TURN,
  method: 'approval.request',
};
const interactionCancelled: Wire12.InteractionCancelledFrame = { ...interactionResolved, type: 'interaction.cancelled', relaySequence: 10 };

let browser: WorkspaceCipher;
let companion: WorkspaceCipher;
let stranger: WorkspaceCipher;
/** The key derived independently from the README's recipe, as a hostile key holder or another implementation would. */
let recipeKey: CryptoKey;

beforeAll(async () => {
  const browserKeys = await generateRelayKeyPair();
  const companionKeys = await generateRelayKeyPair();
  const strangerKeys = await generateRelayKeyPair();
  // Keys travel in their text forms, as they would out of band.
  browser = await createWorkspaceCipher({
    workspaceId: WORKSPACE,
    privateKey: await exportPrivateKey(browserKeys.privateKey, 'pkcs8'),
    peerPublicKey: await exportPublicKey(companionKeys.publicKey),
  });
  companion = await createWorkspaceCipher({
    workspaceId: WORKSPACE,
    privateKey: await exportPrivateKey(companionKeys.privateKey, 'jwk'),
    peerPublicKey: await exportPublicKey(browserKeys.publicKey),
  });
  stranger = await createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: strangerKeys.privateKey, peerPublicKey: companionKeys.publicKey });
  recipeKey = await deriveProfileKey(companionKeys.privateKey, browserKeys.publicKey);
});

async function expectInvalid(promise: Promise<unknown>): Promise<EncryptionError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EncryptionError);
  const encryptionError = error as EncryptionError;
  expect(encryptionError.code).toBe('ENCRYPTED_PAYLOAD_INVALID');
  expect(encryptionError.message).toBe('The encrypted payload could not be opened.');
  return encryptionError;
}

describe('workspace cipher: round trips', () => {
  it.each<[string, 'request' | 'response' | 'event' | 'interaction', SealableFrame]>([
    ['runtime.request', 'request', request],
    ['runtime.response', 'response', response],
    ['runtime.event', 'event', event],
    ['interaction.request', 'interaction', interactionRequest],
    ['interaction.resolved', 'interaction', interactionResolved],
    ['interaction.cancelled', 'interaction', interactionCancelled],
  ])('seals and opens %s as payload kind %s', async (_type, kind, frame) => {
    const envelope = await companion.seal(frame);
    expect(envelope.payloadKind).toBe(kind);
    expect(envelope.algorithm).toBe(E2EE_ALGORITHM);
    expect(await browser.open(envelope)).toEqual(frame);
    // Both directions share the derived key.
    expect(await companion.open(await browser.seal(frame))).toEqual(frame);
  });

  it('produces envelopes that validate against the Wire 1.1 and 1.2 schemas and cross an encrypted socket', async () => {
    for (const frame of [request, response, event, interactionRequest, interactionResolved]) {
      const envelope = await companion.seal(frame);
      expect(validateWireFrame('1.2', envelope)).toEqual({ ok: true, value: envelope });
      expect(validateWireFrame('1.1', envelope).ok).toBe(true);
      expect(Object.keys(envelope).sort()).toEqual(
        ['algorithm', 'ciphertext', 'envelopeId', 'nonce', 'payloadKind', 'type', 'workspaceId', 'requestId' in frame ? 'requestId' : 'relaySequence'].sort(),
      );
    }
    const reader = new FrameReader({ direction: 'relay-to-browser', encryption: true });
    expect(reader.read(JSON.stringify({ type: 'session.ready', controlVersion: '1.0', relayProtocolVersion: '1.2', sessionId: 's', workspaceId: WORKSPACE, workspaceStatus: 'online' })).ok).toBe(true);
    expect(reader.read(JSON.stringify(await companion.seal(event))).ok).toBe(true);
  });

  it('copies requestId and relaySequence into the visible metadata and hides everything else', async () => {
    const sealedRequest = await browser.seal(request);
    expect(sealedRequest.requestId).toBe(REQUEST_ID);
    expect(sealedRequest.relaySequence).toBeUndefined();
    const sealedEvent = await companion.seal(event);
    expect(sealedEvent.relaySequence).toBe(7);
    expect(sealedEvent.requestId).toBeUndefined();
    expect(JSON.stringify(sealedEvent)).not.toContain('héllo');
    expect(JSON.stringify(sealedRequest)).not.toContain(THREAD);
  });

  it('opens envelopes built by hand from the documented recipe (interoperability)', async () => {
    expect(await browser.open(await reseal(event, {}))).toEqual(event);
  });

  it('uses a fresh envelopeId and nonce for every envelope', async () => {
    const first = await browser.seal(request);
    const second = await browser.seal(request);
    expect(first.envelopeId).not.toBe(second.envelopeId);
    expect(first.nonce).not.toBe(second.nonce);
    expect(decodeBase64Url(first.nonce)).toHaveLength(12);
  });
});

describe('workspace cipher: refusals', () => {
  let sealed: EncryptedEnvelope;
  beforeAll(async () => {
    sealed = await companion.seal(event);
  });

  const flipLastChar = (text: string) => text.slice(0, -2) + (text.at(-2) === 'A' ? 'B' : 'A') + text.slice(-1);

  it('refuses a peer holding another key pair', async () => {
    await expectInvalid(stranger.open(sealed));
  });

  it('refuses tampered ciphertext and nonce', async () => {
    await expectInvalid(browser.open({ ...sealed, ciphertext: flipLastChar(sealed.ciphertext) }));
    await expectInvalid(browser.open({ ...sealed, nonce: flipLastChar(sealed.nonce) }));
    await expectInvalid(browser.open({ ...sealed, nonce: encodeBase64Url(new Uint8Array(16)) }));
    await expectInvalid(browser.open({ ...sealed, ciphertext: 'not base64url!' }));
  });

  it('refuses tampered visible metadata', async () => {
    await expectInvalid(browser.open({ ...sealed, relaySequence: 8 }));
    await expectInvalid(browser.open({ ...sealed, envelopeId: REQUEST_ID }));
    await expectInvalid(browser.open({ ...sealed, payloadKind: 'interaction' }));
    await expectInvalid(browser.open({ ...sealed, relaySequence: undefined, requestId: REQUEST_ID, payloadKind: 'response' }));
    await expectInvalid(browser.open({ ...sealed, plaintext: 'x' }));
  });

  it('refuses another algorithm and another workspace', async () => {
    await expectInvalid(browser.open({ ...sealed, algorithm: 'example-aead' }));
    await expectInvalid(browser.open({ ...sealed, workspaceId: OTHER_WORKSPACE }));
    const keys = await generateRelayKeyPair();
    const peer = await generateRelayKeyPair();
    const here = await createWorkspaceCipher({ workspaceId: OTHER_WORKSPACE, privateKey: keys.privateKey, peerPublicKey: peer.publicKey });
    const elsewhere = await createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: peer.privateKey, peerPublicKey: keys.publicKey });
    // Same key pairs, other workspace: HKDF's salt gives a different key.
    await expectInvalid(here.open({ ...(await elsewhere.seal(event)), workspaceId: OTHER_WORKSPACE }));
  });

  it('refuses inner frames that disagree with their envelope, even when authentic', async () => {
    // The sealing side is hostile here: it seals a frame and rewrites the metadata consistently.
    const forged = async (frame: SealableFrame, metadata: Partial<EncryptedEnvelope>) => reseal(frame, metadata);
    await expectInvalid(forged(event, { relaySequence: 99 }).then((envelope) => browser.open(envelope)));
    await expectInvalid(forged(request, { requestId: INTERACTION }).then((envelope) => browser.open(envelope)));
    await expectInvalid(forged({ ...event, workspaceId: OTHER_WORKSPACE } as SealableFrame, {}).then((envelope) => browser.open(envelope)));
    await expectInvalid(forged(event, { payloadKind: 'interaction' }).then((envelope) => browser.open(envelope)));
    await expectInvalid(forged({ ...event, event: { ...event.event, event: { type: 'tool.output' } } } as unknown as SealableFrame, {}).then((envelope) => browser.open(envelope)));
    await expectInvalid(forged({ type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: 7, relaySequence: 7 } as unknown as SealableFrame, {}).then((envelope) => browser.open(envelope)));
  });

  it('refuses authentic inner frames that repeat a key or nest past the frame depth, even 100,000 deep', async () => {
    // A repeated key: JSON.parse would keep the valid second `event` and hide the first from every check.
    const text = JSON.stringify(event);
    const duplicate = text.replace('"event":{', `"event":${JSON.stringify({ ...event.event, event: { type: 'tool.output', stream: 'stdout', text: 'secret' } })},"event":{`);
    await expectInvalid(reseal(event, {}, undefined, undefined, duplicate).then((envelope) => browser.open(envelope)));
    for (const depth of [200, 100_000]) {
      const deep = JSON.stringify({ ...response, result: '<deep>' }).replace('"<deep>"', `${'['.repeat(depth)}${']'.repeat(depth)}`);
      await expectInvalid(reseal(response, {}, undefined, undefined, deep).then((envelope) => browser.open(envelope)));
    }
  });

  it('refuses values that are not envelopes, and does not leak the crypto library text', async () => {
    for (const value of [null, 'text', 42, {}, { ...sealed, type: 'runtime.event' }]) {
      const error = await expectInvalid(browser.open(value));
      expect(error.message).not.toMatch(/operation|decrypt|OperationError/i);
    }
  });

  it('refuses to seal frames of another workspace or of a type without a payload kind', async () => {
    await expect(browser.seal({ ...request, workspaceId: OTHER_WORKSPACE })).rejects.toMatchObject({ code: 'ENCRYPTION_INPUT_INVALID' });
    await expect(browser.seal({ type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: 1 } as unknown as SealableFrame)).rejects.toMatchObject({
      code: 'ENCRYPTION_INPUT_INVALID',
    });
  });

  it('validates the inner frame against the session version when asked', async () => {
    const completed12: Wire12.RuntimeEventFrame = {
      ...event,
      event: { ...event.event, event: { type: 'tool.completed', toolCallId: 'call-1', agentName: 'builder', toolName: 'shell', operationId: '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c42' } },
    };
    const envelope = await companion.seal(completed12);
    expect(await browser.open(envelope)).toEqual(completed12);
    await expectInvalid(browser.open(envelope, { wire: '1.1' }));
  });
});

describe('keys', () => {
  it('refuses malformed public and private keys with a stable code', async () => {
    await expect(importPublicKey('abc')).rejects.toMatchObject({ code: 'ENCRYPTION_KEY_INVALID' });
    await expect(importPublicKey(encodeBase64Url(new Uint8Array(33)))).rejects.toMatchObject({ code: 'ENCRYPTION_KEY_INVALID' });
    const peer = await generateRelayKeyPair();
    await expect(createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: 'AAAA', peerPublicKey: peer.publicKey })).rejects.toMatchObject({
      code: 'ENCRYPTION_KEY_INVALID',
    });
    await expect(
      createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: { kty: 'EC', crv: 'P-256', d: 'x' }, peerPublicKey: peer.publicKey }),
    ).rejects.toMatchObject({ code: 'ENCRYPTION_KEY_INVALID' });
    await expect(createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: peer.publicKey, peerPublicKey: peer.publicKey })).rejects.toMatchObject({
      code: 'ENCRYPTION_KEY_INVALID',
    });
  });

  it('refuses a low-order peer key (all-zero shared secret)', async () => {
    const keys = await generateRelayKeyPair();
    await expect(
      createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: keys.privateKey, peerPublicKey: encodeBase64Url(new Uint8Array(32)) }),
    ).rejects.toMatchObject({ code: 'ENCRYPTION_KEY_INVALID' });
  });
});

describe('base64url', () => {
  it('round-trips every length and refuses non-canonical text', () => {
    for (let length = 0; length < 40; length += 1) {
      const bytes = Uint8Array.from({ length }, (_, index) => (index * 37 + length) & 0xff);
      expect(decodeBase64Url(encodeBase64Url(bytes))).toEqual(bytes);
    }
    expect(decodeBase64Url('AAA=')).toBeUndefined();
    expect(decodeBase64Url('A')).toBeUndefined();
    expect(decodeBase64Url('a+/b')).toBeUndefined();
    expect(decodeBase64Url('AB')).toBeUndefined(); // stray bits
    expect(decodeBase64Url('AA')).toEqual(new Uint8Array([0]));
  });
});

/**
 * Re-encrypts `frame` under the same key as `honest`, with rewritten metadata: what a peer holding the key
 * (not the relay) could do, with the key derived from the documented recipe.
 */
async function reseal(
  frame: SealableFrame,
  metadata: Partial<EncryptedEnvelope>,
  body: Record<string, unknown> = { v: 2, sender: crypto.randomUUID(), counter: 0, sentAt: Date.now() },
  direction?: string,
  /** The inner frame's text as sent, to seal text that JSON.stringify would never produce. */
  frameText = JSON.stringify(frame),
): Promise<EncryptedEnvelope> {
  const inner = frame as { type: string; requestId?: string; relaySequence?: number };
  const byRequest = inner.type === 'runtime.request' || inner.type === 'runtime.response';
  const visible: Record<string, unknown> = {
    type: 'runtime.encrypted',
    workspaceId: metadata.workspaceId ?? WORKSPACE,
    envelopeId: crypto.randomUUID(),
    payloadKind: metadata.payloadKind ?? (byRequest ? inner.type.slice('runtime.'.length) : inner.type === 'runtime.event' ? 'event' : 'interaction'),
    algorithm: E2EE_ALGORITHM,
  };
  const requestId = 'requestId' in metadata ? metadata.requestId : byRequest ? inner.requestId : undefined;
  const relaySequence = 'relaySequence' in metadata ? metadata.relaySequence : byRequest ? undefined : inner.relaySequence;
  if (requestId !== undefined) visible['requestId'] = requestId;
  if (relaySequence !== undefined) visible['relaySequence'] = relaySequence;
  // The AAD adds the direction (never a visible field): requests travel browser-to-companion, the rest back.
  const aad = { ...visible, direction: direction ?? (visible['payloadKind'] === 'request' ? 'browser-to-companion' : 'companion-to-browser') };
  const bodyFields = JSON.stringify(body).slice(1, -1);
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv: nonce, additionalData: new TextEncoder().encode(canonicalJson(aad)) },
    recipeKey,
    new TextEncoder().encode(`{${bodyFields}${bodyFields ? ',' : ''}"frame":${frameText}}`),
  );
  return { ...(visible as unknown as EncryptedEnvelope), nonce: encodeBase64Url(nonce), ciphertext: encodeBase64Url(new Uint8Array(ciphertext)) };
}

async function deriveProfileKey(privateKey: CryptoKey, peer: CryptoKey): Promise<CryptoKey> {
  const shared = await crypto.subtle.deriveBits({ name: 'X25519', public: peer }, privateKey, 256);
  const material = await crypto.subtle.importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new TextEncoder().encode(WORKSPACE), info: new TextEncoder().encode('trustmesh/relay-e2ee/v2') },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt'],
  );
}

describe('workspace cipher: direction and replays (a hostile relay records and re-sends envelopes)', () => {
  let keys: { browser: CryptoKeyPair; companion: CryptoKeyPair };
  const browserSide = (options: Partial<Parameters<typeof createWorkspaceCipher>[0]> = {}) =>
    createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: keys.browser.privateKey, peerPublicKey: keys.companion.publicKey, role: 'browser', ...options });
  const companionSide = (options: Partial<Parameters<typeof createWorkspaceCipher>[0]> = {}) =>
    createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: keys.companion.privateKey, peerPublicKey: keys.browser.publicKey, role: 'companion', ...options });
  const codeOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'opened';
    } catch (error) {
      return (error as EncryptionError).code;
    }
  };

  beforeAll(async () => {
    keys = { browser: await generateRelayKeyPair(), companion: await generateRelayKeyPair() };
  });

  it('refuses an envelope opened before (ENCRYPTED_PAYLOAD_REPLAYED); the same request sealed again opens', async () => {
    const browserCipher = await browserSide();
    const companionCipher = await companionSide();
    const sealed = await browserCipher.seal(request);
    expect(await companionCipher.open(sealed)).toEqual(request);
    expect(await codeOf(companionCipher.open(sealed))).toBe('ENCRYPTED_PAYLOAD_REPLAYED');
    // A re-send is sealed again (a fresh counter), as the client does on every connection.
    expect(await companionCipher.open(await browserCipher.seal(request))).toEqual(request);
  });

  it('refuses, after a restart, what was sealed before it (the receiver forgot every sender)', async () => {
    const browserCipher = await browserSide();
    const recorded = await browserCipher.seal(request);
    // The Companion process restarts ten minutes later: a fresh cipher, a fresh window.
    const restarted = await companionSide({ replayProtection: { now: () => Date.now() + 10 * 60_000 } });
    expect(await codeOf(restarted.open(recorded))).toBe('ENCRYPTED_PAYLOAD_REPLAYED');
    // What the browser seals from then on (its clock ten minutes later too) opens.
    const realNow = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(realNow + 10 * 60_000);
    let fresh: EncryptedEnvelope;
    try {
      fresh = await browserCipher.seal(request);
    } finally {
      clock.mockRestore();
    }
    expect(await restarted.open(fresh)).toEqual(request);
  });

  it('tolerates reordering inside the window and refuses what fell below it', async () => {
    const browserCipher = await browserSide();
    const companionCipher = await companionSide({ replayProtection: { windowSize: 2 } });
    const [first, second, third] = [await browserCipher.seal(request), await browserCipher.seal(request), await browserCipher.seal(request)];
    expect(await codeOf(companionCipher.open(second))).toBe('opened');
    expect(await codeOf(companionCipher.open(first))).toBe('opened');
    expect(await codeOf(companionCipher.open(third))).toBe('opened');
    // Counter 0 is now two below the highest (2): outside a window of 2, refused even though unseen as such.
    expect(await codeOf(companionCipher.open(first))).toBe('ENCRYPTED_PAYLOAD_REPLAYED');
  });

  it('refuses envelopes turned around: the other direction, or a body without its binding', async () => {
    const browserCipher = await browserSide();
    const companionCipher = await companionSide();
    // A Companion never opens what Companions send; a browser never what browsers send.
    expect(await codeOf(companionCipher.open(await companionCipher.seal(event)))).toBe('ENCRYPTED_PAYLOAD_INVALID');
    expect(await codeOf(browserCipher.open(await browserCipher.seal(request)))).toBe('ENCRYPTED_PAYLOAD_INVALID');
    // Nor seals it.
    await expect(browserCipher.seal(event)).rejects.toMatchObject({ code: 'ENCRYPTION_INPUT_INVALID' });
    // The direction is in the AAD: an authentic request whose AAD says companion-to-browser does not open.
    expect(await codeOf(companionCipher.open(await reseal(request, {}, undefined, 'companion-to-browser')))).toBe('ENCRYPTED_PAYLOAD_INVALID');
    // A body without sender, counter and time (the unbound revision 1 body) does not open.
    expect(await codeOf(companionCipher.open(await reseal(request, {}, {})))).toBe('ENCRYPTED_PAYLOAD_INVALID');
    expect(await codeOf(companionCipher.open(await reseal(request, {}, { v: 2, sender: 'nobody', counter: 0, sentAt: Date.now() })))).toBe(
      'ENCRYPTED_PAYLOAD_INVALID',
    );
  });
});
