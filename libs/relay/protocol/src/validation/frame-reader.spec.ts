import { ack, deviceConnect, OTHER_WORKSPACE, REQUEST, request, runtimeEvent, sessionReady, WORKSPACE } from '../../test/support/sample-frames';
import { decodeFrame, FrameReader, MAX_FRAME_DEPTH } from './frame-reader';

const text = (value: unknown) => JSON.stringify(value);
const codes = (verdict: { ok: boolean; issues?: Array<{ code: string }> }) => (verdict.ok ? [] : verdict.issues!.map((i) => i.code));

describe('reading frame text', () => {
  it('refuses a frame over the byte limit before parsing it, whatever it contains', () => {
    const oversized = `{"type":"runtime.ack",${'x'.repeat(2_000)}`; // not even JSON
    const verdict = decodeFrame(oversized, { wire: '1.2', maxFrameBytes: 1_000 });
    expect(verdict).toEqual({ ok: false, issues: [expect.objectContaining({ code: 'FRAME_TOO_LARGE', path: '' })] });
  });

  it('counts UTF-8 bytes, not UTF-16 units, against the limit', () => {
    const frame = text({ ...request('thread.create', { requestId: WORKSPACE, title: 'é'.repeat(150) }) });
    expect(decodeFrame(frame, { wire: '1.2', maxFrameBytes: frame.length + 10 }).ok).toBe(false);
    expect(decodeFrame(frame, { wire: '1.2', maxFrameBytes: frame.length + 200 }).ok).toBe(true);
  });

  it('refuses binary frames, bytes that are not UTF-8 and bad JSON with distinct codes', () => {
    expect(codes(decodeFrame(text(ack(0)), { wire: '1.2', binary: true }))).toEqual(['FRAME_NOT_TEXT']);
    expect(codes(decodeFrame(new Uint8Array([0x7b, 0xff, 0x7d]), { wire: '1.2' }))).toEqual(['FRAME_NOT_TEXT']);
    expect(codes(decodeFrame('{"type":', { wire: '1.2' }))).toEqual(['FRAME_NOT_JSON']);
    expect(codes(decodeFrame('[1,2]', { wire: '1.2' }))).toEqual(['FRAME_NOT_OBJECT']);
  });

  it('accepts UTF-8 bytes as well as strings', () => {
    expect(decodeFrame(new TextEncoder().encode(text(ack(4))), { wire: '1.2' }).ok).toBe(true);
  });

  it('counts 3-byte (CJK) and 4-byte characters at their full UTF-8 size, on both sides of the limit', () => {
    // 2 bytes per UTF-16 unit would let CJK text through at 1.5× the limit, so the bound is tested just
    // past it: a frame one character over is refused, the same frame one character shorter is read.
    for (const char of ['中', '😀']) {
      const frame = (count: number) => text(request('thread.create', { requestId: WORKSPACE, title: char.repeat(count) }));
      const bytes = (count: number) => new TextEncoder().encode(frame(count)).byteLength;
      const limit = bytes(400);
      expect(decodeFrame(frame(400), { wire: '1.2', maxFrameBytes: limit }).ok).toBe(true);
      expect(codes(decodeFrame(frame(401), { wire: '1.2', maxFrameBytes: limit }))).toEqual(['FRAME_TOO_LARGE']);
      expect(codes(decodeFrame(frame(401), { wire: '1.2', maxFrameBytes: limit + bytes(1) - bytes(0) - 1 }))).toEqual(['FRAME_TOO_LARGE']);
      expect(decodeFrame(frame(401), { wire: '1.2', maxFrameBytes: limit + bytes(1) - bytes(0) }).ok).toBe(true);
    }
  });

  it('does not echo the parser error text', () => {
    const verdict = decodeFrame('{"a": tru}', { wire: '1.2' });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.issues[0]!.message).toBe('The frame is not valid JSON.');
  });
});

describe('nesting and duplicate keys, refused while reading the text, before anything walks the value', () => {
  const nestedParams = (depth: number) =>
    `{"type":"runtime.request","requestId":"${REQUEST}","workspaceId":"${WORKSPACE}","method":"thread.list","params":${'['.repeat(depth)}${']'.repeat(depth)}}`;

  it(`reads frames nested ${MAX_FRAME_DEPTH} deep and refuses deeper ones with FRAME_TOO_DEEP, however deep`, () => {
    // The frame object is level 1, so its params may hold MAX_FRAME_DEPTH - 1 levels.
    expect(decodeFrame(nestedParams(MAX_FRAME_DEPTH - 1), { wire: '1.2', direction: 'browser-to-relay' }).ok).toBe(true);
    expect(decodeFrame(nestedParams(MAX_FRAME_DEPTH), { wire: '1.2', direction: 'browser-to-relay' })).toEqual({
      ok: false,
      issues: [{ code: 'FRAME_TOO_DEEP', path: `/params${'/0'.repeat(MAX_FRAME_DEPTH - 1)}`, message: expect.stringContaining(String(MAX_FRAME_DEPTH)) }],
    });
    for (const depth of [9_000, 100_000]) {
      const socket = new FrameReader({ direction: 'browser-to-relay', wire: '1.2', workspaceId: WORKSPACE });
      expect(codes(socket.read(nestedParams(depth)))).toEqual(['FRAME_TOO_DEEP']);
    }
  });

  it('refuses a repeated key anywhere in a frame with FRAME_DUPLICATE_KEY and the pointer of its object', () => {
    const event = text(runtimeEvent({ type: 'turn.started' }));
    const smuggled = [
      // A secret-bearing first `event`, then a valid one: JSON.parse keeps the second, the text carries both.
      [event.replace('"event":{', '"event":{"type":"tool.started","input":"secret"},"event":{'), ''],
      [event.replace('"event":{"type":"turn.started"}', '"event":{"type":"turn.started","type":"turn.started"}'), '/event/event'],
      [text(request('thread.list', { limit: 1 })).replace('"method"', '"method":"turn.start","method"'), ''],
      [text({ type: 'runtime.response', requestId: REQUEST, workspaceId: WORKSPACE, result: { ok: true } }).replace('"result"', '"result":{"secret":1},"result"'), ''],
    ] as const;
    for (const [frame, path] of smuggled) {
      expect(decodeFrame(frame, { wire: '1.2' })).toEqual({ ok: false, issues: [{ code: 'FRAME_DUPLICATE_KEY', path, message: expect.any(String) }] });
    }
  });

  it('compares keys after unescaping: "method" and "\\u006dethod" are one key', () => {
    const frame = text(request('thread.list', { limit: 1 })).replace('"method"', '"\\u006dethod":"turn.start","method"');
    expect(codes(decodeFrame(frame, { wire: '1.2' }))).toEqual(['FRAME_DUPLICATE_KEY']);
  });

  it('reports bad JSON as FRAME_NOT_JSON even when it is also deep or repeats a key', () => {
    expect(codes(decodeFrame(`{"a":1,"a":2${'['.repeat(500)}`, { wire: '1.2' }))).toEqual(['FRAME_NOT_JSON']);
  });
});

describe('a companion socket, read by the relay', () => {
  const reader = () => new FrameReader({ direction: 'companion-to-relay', acceptVersions: ['1.2', '1.1'] });

  it('takes its Wire version from the first device.connect and holds every later frame to it', () => {
    const socket = reader();
    expect(socket.read(text(deviceConnect('1.1'))).ok).toBe(true);
    expect(socket.wire).toBe('1.1');
    const tool12 = runtimeEvent({ type: 'tool.completed', toolCallId: 't', agentName: 'a', toolName: 'x', operationId: WORKSPACE }, 0);
    expect(codes(socket.read(text(tool12)))).toEqual(['FIELD_NOT_ALLOWED']);
  });

  it('refuses a first frame that is not device.connect, and device.connect after the first', () => {
    expect(codes(reader().read(text(runtimeEvent({ type: 'turn.started' }))))).toEqual(['FRAME_ORDER_VIOLATION']);
    const socket = reader();
    socket.read(text(deviceConnect('1.2')));
    expect(codes(socket.read(text(deviceConnect('1.2'))))).toEqual(['FRAME_ORDER_VIOLATION']);
  });

  it('refuses versions it does not accept, naming the field', () => {
    const verdict = reader().read(text(deviceConnect('1.0')));
    expect(verdict).toEqual({ ok: false, issues: [expect.objectContaining({ code: 'PROTOCOL_VERSION_UNSUPPORTED', path: '/protocolVersion' })] });
    expect(codes(reader().read(text(deviceConnect('9.9'))))).toEqual(['PROTOCOL_VERSION_UNSUPPORTED']);
  });

  it('enforces the direction allowlist and the bound workspace', () => {
    const socket = reader();
    socket.read(text(deviceConnect('1.2')));
    socket.bindWorkspace(WORKSPACE);
    expect(codes(socket.read(text(ack(0))))).toEqual(['FRAME_DIRECTION_FORBIDDEN']);
    expect(codes(socket.read(text({ ...runtimeEvent({ type: 'turn.started' }), workspaceId: OTHER_WORKSPACE })))).toEqual(['WORKSPACE_MISMATCH']);
    expect(socket.read(text(runtimeEvent({ type: 'turn.started' }))).ok).toBe(true);
  });

  it('lets runtime.encrypted through only on sockets with an encryption profile', () => {
    const envelope = {
      type: 'runtime.encrypted',
      workspaceId: WORKSPACE,
      envelopeId: OTHER_WORKSPACE,
      payloadKind: 'event',
      relaySequence: 1,
      algorithm: 'x25519-aes-256-gcm',
      nonce: 'bm9uY2U',
      ciphertext: 'Y2lwaGVy',
    };
    const plain = reader();
    plain.read(text(deviceConnect('1.2')));
    expect(codes(plain.read(text(envelope)))).toEqual(['FRAME_DIRECTION_FORBIDDEN']);
    const encrypted = new FrameReader({ direction: 'companion-to-relay', encryption: true });
    encrypted.read(text(deviceConnect('1.2')));
    expect(encrypted.read(text(envelope)).ok).toBe(true);
  });

  it('refuses Control messages, which only the relay sends to browsers', () => {
    const socket = reader();
    socket.read(text(deviceConnect('1.2')));
    expect(codes(socket.read(text(sessionReady())))).toEqual(['FRAME_DIRECTION_FORBIDDEN']);
  });
});

describe('a browser socket, read by the browser', () => {
  const reader = () => new FrameReader({ direction: 'relay-to-browser' });

  it('requires session.ready first and exactly once, and takes version and workspace from it', () => {
    expect(codes(reader().read(text(runtimeEvent({ type: 'turn.started' }))))).toEqual(['FRAME_ORDER_VIOLATION']);
    expect(codes(reader().read(text({ type: 'workspace.status', workspaceId: WORKSPACE, status: 'online' })))).toEqual(['FRAME_ORDER_VIOLATION']);
    const socket = reader();
    expect(socket.read(text(sessionReady('1.1'))).ok).toBe(true);
    expect(socket.wire).toBe('1.1');
    expect(socket.workspaceId).toBe(WORKSPACE);
    expect(codes(socket.read(text(sessionReady('1.1'))))).toEqual(['FRAME_ORDER_VIOLATION']);
  });

  it('refuses a session.ready for another workspace than the one the socket is bound to', () => {
    const socket = new FrameReader({ direction: 'relay-to-browser', workspaceId: WORKSPACE });
    expect(socket.read(text(sessionReady('1.2', OTHER_WORKSPACE)))).toEqual({
      ok: false,
      issues: [expect.objectContaining({ code: 'WORKSPACE_MISMATCH', path: '/workspaceId' })],
    });
    expect(socket.workspaceId).toBe(WORKSPACE);
    expect(socket.read(text(sessionReady('1.2', WORKSPACE))).ok).toBe(true);
  });

  it('refuses frames and statuses for a foreign workspace', () => {
    const socket = reader();
    socket.read(text(sessionReady('1.2')));
    expect(codes(socket.read(text({ type: 'workspace.status', workspaceId: OTHER_WORKSPACE, status: 'offline' })))).toEqual(['WORKSPACE_MISMATCH']);
    expect(codes(socket.read(text({ ...runtimeEvent({ type: 'turn.started' }), workspaceId: OTHER_WORKSPACE })))).toEqual(['WORKSPACE_MISMATCH']);
    expect(socket.read(text({ type: 'workspace.status', workspaceId: WORKSPACE, status: 'offline' })).ok).toBe(true);
  });

  it('never speaks Wire 1.0', () => {
    expect(() => new FrameReader({ direction: 'relay-to-browser', wire: '1.0' })).toThrow(/never bridged/);
    expect(codes(reader().read(text(sessionReady('1.0'))))).toEqual(['FIELD_VALUE']);
  });

  it('refuses request frames, which browsers send and never receive', () => {
    const socket = reader();
    socket.read(text(sessionReady('1.2')));
    expect(codes(socket.read(text(request('thread.list', { limit: 10 }))))).toEqual(['FRAME_DIRECTION_FORBIDDEN']);
  });
});

describe('a browser socket, read by the relay', () => {
  it('accepts requests and ACKs for the ticket workspace only', () => {
    const socket = new FrameReader({ direction: 'browser-to-relay', wire: '1.2', workspaceId: WORKSPACE });
    expect(socket.read(text(ack(-1))).ok).toBe(true);
    expect(socket.read(text(request('thread.list', { limit: 10 }))).ok).toBe(true);
    expect(codes(socket.read(text(ack(0, OTHER_WORKSPACE))))).toEqual(['WORKSPACE_MISMATCH']);
    expect(codes(socket.read(text(runtimeEvent({ type: 'turn.started' }))))).toEqual(['FRAME_DIRECTION_FORBIDDEN']);
  });
});
