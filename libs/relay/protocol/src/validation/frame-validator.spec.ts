import { interactionRequest, REQUEST, request, runtimeEvent, THREAD, TURN, INTERACTION, userInputForm, WORKSPACE } from '../../test/support/sample-frames';
import { STRICT_CHECKS, validateBrowserSessionDescriptor, validateMethodParams, validateMethodResult, validateWireFrame } from './frame-validator';

const only = (verdict: { ok: boolean; issues?: unknown[] }) => {
  expect(verdict.ok).toBe(false);
  expect(verdict.issues).toHaveLength(1);
  return verdict.issues![0];
};

describe('schema failures explained at the offending value', () => {
  it('points into the timeline member the event meant to be, not at the union', () => {
    const leak = runtimeEvent({ type: 'tool.started', toolCallId: 't1', agentName: 'agent', toolName: 'deploy', input: { secret: 'x' } });
    expect(only(validateWireFrame('1.2', leak))).toEqual({
      code: 'FIELD_NOT_ALLOWED',
      path: '/event/event/input',
      message: expect.stringContaining('`input`'),
    });
  });

  it('names the allowed values when no union member matches the discriminator', () => {
    const unknownEvent = runtimeEvent({ type: 'tool.progress' });
    expect(only(validateWireFrame('1.1', unknownEvent))).toEqual(
      expect.objectContaining({ code: 'FIELD_VALUE', path: '/event/event/type', message: expect.stringContaining('"tool.started"') }),
    );
  });

  it('follows nested unions: a 1.2 app output descriptor with a bad field', () => {
    const frame = runtimeEvent({
      type: 'tool.completed',
      toolCallId: 't1',
      agentName: 'agent',
      toolName: 'deploy',
      appOutput: { status: 'available', schemaId: 'report', schemaVersion: 0 },
    });
    expect(only(validateWireFrame('1.2', frame))).toEqual(expect.objectContaining({ code: 'FIELD_RANGE', path: '/event/event/appOutput/schemaVersion' }));
  });

  it('reports format, range and type failures with their own codes', () => {
    expect(only(validateWireFrame('1.2', { type: 'runtime.ack', workspaceId: 'nope', throughRelaySequence: 0 }))).toEqual(
      expect.objectContaining({ code: 'FIELD_FORMAT', path: '/workspaceId', message: expect.stringContaining('UUID') }),
    );
    expect(only(validateWireFrame('1.2', { type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: -2 }))).toEqual(
      expect.objectContaining({ code: 'FIELD_RANGE', path: '/throughRelaySequence' }),
    );
    expect(only(validateWireFrame('1.2', { type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: '3' }))).toEqual(
      expect.objectContaining({ code: 'FIELD_TYPE', path: '/throughRelaySequence' }),
    );
    const late = { ...interactionRequest('approval.request', { approvalId: REQUEST, agentName: 'a', toolName: 't' }), expiresAt: '2026-11-30T10:05:00' };
    expect(only(validateWireFrame('1.2', late))).toEqual(expect.objectContaining({ code: 'FIELD_FORMAT', path: '/expiresAt', message: expect.stringContaining('RFC 3339') }));
  });

  it('reports the failure of the member the value meant to be, not of a sibling member', () => {
    expect(only(validateWireFrame('1.2', runtimeEvent({ type: 'turn.failed' })))).toEqual(
      expect.objectContaining({ code: 'FIELD_REQUIRED', path: '/event/event/stage' }),
    );
    const form = userInputForm();
    (form.controls[0] as { type: string }).type = 'slider';
    expect(only(validateWireFrame('1.2', interactionRequest('userInput.request', form)))).toEqual(
      expect.objectContaining({ code: 'FIELD_VALUE', path: '/projection/controls/0/type' }),
    );
    const identity = { interactionId: INTERACTION, threadId: THREAD, turnId: TURN };
    expect(only(validateMethodParams('1.2', 'interaction.candidate', { ...identity, method: 'approval.request', candidate: { decision: 'approve', reason: 'x' } }))).toEqual(
      expect.objectContaining({ code: 'FIELD_NOT_ALLOWED', path: '/params/candidate/reason' }),
    );
    expect(only(validateMethodParams('1.2', 'interaction.candidate', { ...identity, method: 'userInput.request', candidate: { status: 'submitted' } }))).toEqual(
      expect.objectContaining({ code: 'FIELD_REQUIRED', path: '/params/candidate/values' }),
    );
  });

  it('escapes JSON pointer tokens', () => {
    const frame = { ...runtimeEvent({ type: 'turn.started' }), 'a/b~c': 1 };
    expect(only(validateWireFrame('1.2', frame))).toEqual(expect.objectContaining({ path: '/a~1b~0c' }));
  });

  it('tells apart unknown types, types of another version and Control messages', () => {
    expect(only(validateWireFrame('1.2', { type: 'runtime.unknown' }))).toEqual(expect.objectContaining({ code: 'FRAME_TYPE_UNKNOWN', path: '/type' }));
    expect(only(validateWireFrame('1.0', interactionRequest('approval.request', {})))).toEqual(
      expect.objectContaining({ code: 'FRAME_TYPE_UNKNOWN', message: expect.stringContaining('another Wire version') }),
    );
    expect(only(validateWireFrame('1.2', { type: 'session.ready' }))).toEqual(expect.objectContaining({ message: expect.stringContaining('Control 1.0') }));
    expect(only(validateWireFrame('1.2', { workspaceId: WORKSPACE }))).toEqual(expect.objectContaining({ code: 'FIELD_REQUIRED', path: '/type' }));
    expect(only(validateWireFrame('1.2', { type: 7 }))).toEqual(expect.objectContaining({ code: 'FIELD_TYPE', path: '/type' }));
    expect(only(validateWireFrame('1.2', 'runtime.ack'))).toEqual(expect.objectContaining({ code: 'FRAME_NOT_OBJECT' }));
  });

  it('does not treat inherited object keys as frame types', () => {
    expect(only(validateWireFrame('1.2', { type: 'constructor' }))).toEqual(expect.objectContaining({ code: 'FRAME_TYPE_UNKNOWN' }));
    expect(only(validateWireFrame('1.2', { type: '__proto__' }))).toEqual(expect.objectContaining({ code: 'FRAME_TYPE_UNKNOWN' }));
  });
});

describe('method params and results', () => {
  it('checks params per method, reporting under /params', () => {
    expect(validateMethodParams('1.2', 'thread.list', { limit: 100 }).ok).toBe(true);
    expect(only(validateMethodParams('1.2', 'thread.list', { limit: 501 }))).toEqual(expect.objectContaining({ code: 'FIELD_RANGE', path: '/params/limit' }));
    expect(only(validateMethodParams('1.2', 'thread.list', { cursor: 'abc', limit: 1 }))).toEqual(expect.objectContaining({ code: 'FIELD_FORMAT', path: '/params/cursor' }));
    expect(only(validateMethodParams('1.1', 'operation.result.get', {}))).toEqual(expect.objectContaining({ code: 'METHOD_UNKNOWN' }));
  });

  it('pins interaction.candidate to the candidate shape of its method', () => {
    const mismatched = { interactionId: INTERACTION, threadId: THREAD, turnId: TURN, method: 'approval.request', candidate: { status: 'submitted', values: [] } };
    expect(only(validateMethodParams('1.2', 'interaction.candidate', mismatched))).toEqual(
      expect.objectContaining({ code: 'FIELD_REQUIRED', path: '/params/candidate/decision' }),
    );
    const badValue = { ...mismatched, method: 'userInput.request', candidate: { status: 'submitted', values: [{ id: 'x', value: { nested: true } }] } };
    expect(only(validateMethodParams('1.2', 'interaction.candidate', badValue))).toEqual(
      expect.objectContaining({ code: 'FIELD_TYPE', path: '/params/candidate/values/0/value' }),
    );
  });

  it('refuses results the spec rules out', () => {
    expect(validateMethodResult('1.2', 'interaction.candidate', { accepted: true }).ok).toBe(true);
    expect(validateMethodResult('1.2', 'interaction.candidate', { accepted: false }).ok).toBe(false);
    expect(validateMethodResult('1.2', 'thread.delete', { deleted: false }).ok).toBe(false);
  });
});

describe('optional checks a strict peer switches on', () => {
  const both = { type: 'runtime.response', requestId: REQUEST, workspaceId: WORKSPACE, result: {}, error: { code: 'COMPANION_ERROR', message: 'm', retryable: false } };

  it('keeps the deferred rules off by default, as §3 requires', () => {
    expect(validateWireFrame('1.2', both).ok).toBe(true);
    expect(validateWireFrame('1.2', { type: 'runtime.gap', workspaceId: WORKSPACE, fromRelaySequence: 9, throughRelaySequence: 3, recovery: 'thread.snapshot' }).ok).toBe(true);
  });

  it('enforces each deferred rule when asked', () => {
    expect(only(validateWireFrame('1.2', both, { deferredRules: true }))).toEqual(expect.objectContaining({ code: 'RESPONSE_RESULT_XOR_ERROR' }));
    const gap = { type: 'runtime.gap', workspaceId: WORKSPACE, fromRelaySequence: 9, throughRelaySequence: 3, recovery: 'thread.snapshot' };
    expect(only(validateWireFrame('1.2', gap, { deferredRules: ['gap-from-not-after-through'] }))).toEqual(expect.objectContaining({ code: 'GAP_RANGE_INVERTED' }));
    expect(validateWireFrame('1.2', gap, { deferredRules: ['runtime.response-result-xor-error'] }).ok).toBe(true);
    const envelope = { type: 'runtime.encrypted', workspaceId: WORKSPACE, envelopeId: REQUEST, payloadKind: 'request', algorithm: 'a', nonce: 'n', ciphertext: 'c' };
    expect(only(validateWireFrame('1.2', envelope, STRICT_CHECKS))).toEqual(expect.objectContaining({ code: 'ENCRYPTED_METADATA_MISSING', path: '/requestId' }));
  });

  it('checks request params and user-input forms', () => {
    expect(validateWireFrame('1.2', request('thread.list', {})).ok).toBe(true);
    expect(only(validateWireFrame('1.2', request('thread.list', {}), STRICT_CHECKS))).toEqual(expect.objectContaining({ code: 'FIELD_REQUIRED', path: '/params/limit' }));
    const form = userInputForm();
    form.controls[1]!.id = 'region';
    const frame = interactionRequest('userInput.request', form);
    expect(validateWireFrame('1.2', frame).ok).toBe(true);
    expect(only(validateWireFrame('1.2', frame, STRICT_CHECKS))).toEqual(expect.objectContaining({ code: 'FORM_RULE_VIOLATION', path: '/projection/controls/1/id' }));
  });
});

describe('browser session descriptors', () => {
  it('accept lowercase wss URLs with an offset expiry and refuse the rest', () => {
    expect(validateBrowserSessionDescriptor({ connectUrl: 'wss://relay.test/v1/browser?ticket=t', expiresAt: '2026-11-30T10:00:00Z' }).ok).toBe(true);
    for (const connectUrl of ['ws://relay.test/v1/browser', 'WSS://relay.test/v1/browser', 'wss://relay test/x', 'wss://[::1']) {
      expect(validateBrowserSessionDescriptor({ connectUrl, expiresAt: '2026-11-30T10:00:00Z' }).ok).toBe(false);
    }
    expect(validateBrowserSessionDescriptor({ connectUrl: 'wss://relay.test/', expiresAt: '2026-11-30T10:00:00' }).ok).toBe(false);
  });
});
