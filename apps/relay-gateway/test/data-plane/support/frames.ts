/** Valid Wire frames for the data plane's tests (built here, never copied from the specification). */
import { randomUUID } from 'node:crypto';

export const THREAD_ID = randomUUID();
export const TURN_ID = randomUUID();
const RUNTIME_ID = randomUUID();
const STREAM_ID = randomUUID();

export const frames = {
  deviceConnect: (deviceId: string, pairingToken: string, protocolVersion = '1.2') => ({ type: 'device.connect', protocolVersion, deviceId, pairingToken }),
  event: (workspaceId: string, relaySequence: number, marker = `delta-${relaySequence}`) => ({
    type: 'runtime.event',
    workspaceId,
    relaySequence,
    event: {
      protocolVersion: '1.1',
      runtimeInstanceId: RUNTIME_ID,
      sequence: relaySequence,
      timestamp: '2026-11-30T10:00:00.000Z',
      threadId: THREAD_ID,
      turnId: TURN_ID,
      event: { type: 'message.delta', streamId: STREAM_ID, delta: marker },
    },
  }),
  /** A 1.2-only `tool.completed` (with `appOutput` and `operationId`), which a 1.1 browser gets downgraded. */
  toolCompleted12: (workspaceId: string, relaySequence: number) => ({
    type: 'runtime.event',
    workspaceId,
    relaySequence,
    event: {
      protocolVersion: '1.1',
      runtimeInstanceId: RUNTIME_ID,
      sequence: relaySequence,
      timestamp: '2026-11-30T10:00:00.000Z',
      threadId: THREAD_ID,
      turnId: TURN_ID,
      event: {
        type: 'tool.completed',
        toolCallId: 'call-1',
        agentName: 'agent',
        toolName: 'tool',
        outcome: { kind: 'success' },
        appOutput: { status: 'not_provided' },
        operationId: randomUUID(),
      },
    },
  }),
  interactionRequest: (workspaceId: string, relaySequence: number, interactionId: string, expiresAt = '2099-01-01T00:00:00.000Z') => ({
    type: 'interaction.request',
    workspaceId,
    relaySequence,
    interactionId,
    threadId: THREAD_ID,
    turnId: TURN_ID,
    expiresAt,
    sensitivity: 'normal',
    method: 'approval.request',
    projection: { approvalId: randomUUID(), agentName: 'agent', toolName: 'tool' },
  }),
  interactionResolved: (workspaceId: string, relaySequence: number, interactionId: string) => ({
    type: 'interaction.resolved',
    workspaceId,
    relaySequence,
    interactionId,
    threadId: THREAD_ID,
    turnId: TURN_ID,
    method: 'approval.request',
  }),
  gap: (workspaceId: string, from: number, through: number) => ({
    type: 'runtime.gap',
    workspaceId,
    fromRelaySequence: from,
    throughRelaySequence: through,
    recovery: 'thread.snapshot',
  }),
  request: (workspaceId: string, method = 'thread.list', params: unknown = { limit: 10 }, requestId: string = randomUUID()) => ({
    type: 'runtime.request',
    requestId,
    workspaceId,
    method,
    params,
  }),
  candidate: (workspaceId: string, interactionId: string, requestId: string = randomUUID()) => ({
    type: 'runtime.request',
    requestId,
    workspaceId,
    method: 'interaction.candidate',
    params: { interactionId, threadId: THREAD_ID, turnId: TURN_ID, method: 'approval.request', candidate: { decision: 'approve' } },
  }),
  response: (workspaceId: string, requestId: string, result: unknown = { items: [], nextCursor: null }) => ({
    type: 'runtime.response',
    requestId,
    workspaceId,
    result,
  }),
  ack: (workspaceId: string, throughRelaySequence: number) => ({ type: 'runtime.ack', workspaceId, throughRelaySequence }),
  encrypted: (workspaceId: string, payloadKind: 'request' | 'response' | 'event' | 'interaction', extra: { requestId?: string; relaySequence?: number }) => ({
    type: 'runtime.encrypted',
    workspaceId,
    envelopeId: randomUUID(),
    payloadKind,
    ...extra,
    algorithm: 'x25519-hkdf-sha256-aes-256-gcm',
    nonce: 'bm9uY2UtZm9yLXRlc3Rz',
    ciphertext: 'Y2lwaGVydGV4dC1wbGFjZWhvbGRlcg==',
  }),
};
