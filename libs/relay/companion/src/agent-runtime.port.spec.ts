import type { RuntimeEventEnvelope, RuntimeInteraction } from '@trustmesh/relay-protocol';

import { AgentRuntimeError, isAgentRuntimeError, type RuntimeServerRequestPayload, type RuntimeThreadSnapshot } from './agent-runtime.port';

// Compile-time: the raw shapes are the inputs of the protocol projections.
const payloadIsProjectable = (payload: RuntimeServerRequestPayload): RuntimeInteraction => payload;
const snapshotIsUnknownInput = (snapshot: RuntimeThreadSnapshot): unknown => snapshot;
const envelopeIsTimeline = (envelope: RuntimeEventEnvelope): RuntimeEventEnvelope => envelope;

describe('the AgentRuntime port', () => {
  it('keeps its raw shapes assignable to the projection inputs', () => {
    expect([payloadIsProjectable, snapshotIsUnknownInput, envelopeIsTimeline].every((fn) => typeof fn === 'function')).toBe(true);
  });

  it('recognises runtime errors by shape, keeping only code and retryability', () => {
    const error = new AgentRuntimeError('THREAD_NOT_FOUND', 'thread /home/secret is gone', true);
    expect(isAgentRuntimeError(error)).toBe(true);
    expect(isAgentRuntimeError({ name: 'AgentRuntimeError', code: -32601 })).toBe(true);
    expect(isAgentRuntimeError(new Error('boom'))).toBe(false);
    expect(isAgentRuntimeError({ name: 'AgentRuntimeError', code: {} })).toBe(false);
  });
});
