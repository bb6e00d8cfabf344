/**
 * Frame builders for the client's tests: valid Wire 1.2 / Control 1.0 frames with real UUIDs, so every
 * frame a scripted relay sends passes the same validation a real relay's frames do.
 */
import type { Control10, Wire12 } from '@trustmesh/relay-protocol';

let counter = 0;
/** A fresh, valid v4-shaped UUID, readable in failures (its tail counts up). */
export function uuid(): string {
  counter += 1;
  return `00000000-0000-4000-8000-${counter.toString(16).padStart(12, '0')}`;
}

export const WORKSPACE = '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c2d';
export const RUNTIME = '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c40';

export function sessionReady(overrides: Partial<Control10.SessionReadyMessage> = {}): Control10.SessionReadyMessage {
  return { type: 'session.ready', controlVersion: '1.0', relayProtocolVersion: '1.2', sessionId: 'session-1', workspaceId: WORKSPACE, workspaceStatus: 'online', ...overrides };
}

export function workspaceStatus(status: 'online' | 'offline'): Control10.WorkspaceStatusMessage {
  return { type: 'workspace.status', workspaceId: WORKSPACE, status };
}

type TimelineEvent = Wire12.RuntimeEventFrame['event']['event'];

export function runtimeEvent(relaySequence: number, threadId: string, event: TimelineEvent, turnId?: string): Wire12.RuntimeEventFrame {
  return {
    type: 'runtime.event',
    workspaceId: WORKSPACE,
    relaySequence,
    event: {
      protocolVersion: '1.1',
      runtimeInstanceId: RUNTIME,
      sequence: relaySequence,
      timestamp: '2026-01-01T00:00:00Z',
      threadId,
      ...(turnId ? { turnId } : {}),
      event,
    },
  };
}

export function gap(fromRelaySequence: number, throughRelaySequence: number): Wire12.RuntimeGapFrame {
  return { type: 'runtime.gap', workspaceId: WORKSPACE, fromRelaySequence, throughRelaySequence, recovery: 'thread.snapshot' };
}

export function approvalRequest(
  relaySequence: number,
  ids: { interactionId: string; threadId: string; turnId: string },
  expiresAt = '2999-01-01T00:00:00Z',
): Wire12.InteractionRequestFrame {
  return {
    type: 'interaction.request',
    workspaceId: WORKSPACE,
    relaySequence,
    ...ids,
    expiresAt,
    sensitivity: 'normal',
    method: 'approval.request',
    projection: { approvalId: uuid(), agentName: 'builder', toolName: 'shell', explanation: 'Run the tests' },
  };
}

export function userInputRequest(
  relaySequence: number,
  ids: { interactionId: string; threadId: string; turnId: string },
  expiresAt = '2999-01-01T00:00:00Z',
): Wire12.InteractionRequestFrame {
  return {
    type: 'interaction.request',
    workspaceId: WORKSPACE,
    relaySequence,
    ...ids,
    expiresAt,
    sensitivity: 'normal',
    method: 'userInput.request',
    projection: {
      title: 'Deploy settings',
      controls: [
        { type: 'choice', id: 'region', label: 'Region', required: true, multiple: false, options: [{ id: 'eu', label: 'EU' }, { id: 'us', label: 'US' }] },
        { type: 'number', id: 'replicas', label: 'Replicas', required: true, min: 1, max: 5, integer: true },
        { type: 'text', id: 'note', label: 'Note', required: false, maxLength: 20 },
      ],
    },
  };
}

export function interactionTerminal(
  type: 'interaction.resolved' | 'interaction.cancelled',
  relaySequence: number,
  request: Pick<Wire12.InteractionRequestFrame, 'interactionId' | 'threadId' | 'turnId' | 'method'>,
): Wire12.InteractionResolvedFrame | Wire12.InteractionCancelledFrame {
  const { interactionId, threadId, turnId, method } = request;
  return { type, workspaceId: WORKSPACE, relaySequence, interactionId, threadId, turnId, method };
}

export function threadSummary(id: string, title = 'A thread') {
  return { id, title, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', messageCount: 0 };
}

export function snapshotResult(threadId: string, overrides: Partial<Wire12.ThreadSnapshotResult> = {}): Wire12.ThreadSnapshotResult {
  return {
    thread: threadSummary(threadId),
    messages: { items: [], nextBeforeSequence: null },
    operations: { items: [], nextBeforeSequence: null },
    pendingApprovals: [],
    transcriptCompleteness: 'complete',
    ...overrides,
  };
}
