/**
 * The timeline projection (BEHAVIOUR.md §3, §9): a raw Runtime event becomes what `runtime.event`
 * may carry in the target Wire version, or nothing.
 *
 * The projection builds each output object from an allowlist of fields, never by deleting fields from
 * the input, so a Runtime field it does not know can never ride along. Its output is validated against
 * the target schema before it is returned; anything malformed or unexpected fails closed.
 */
import type * as RuntimeTimeline from '../generated/runtime-timeline.types';
import type * as Wire10 from '../generated/wire-1.0.types';
import type * as Wire11 from '../generated/wire-1.1.types';
import type * as Wire12 from '../generated/wire-1.2.types';
import { issue, reject, type Verdict } from '../validation/frame-issue';
import { validateRuntimeEventEnvelope, validateWireFrame } from '../validation/frame-validator';
import type { WireVersion } from '../wire-version';

export interface TimelineEnvelopeOf {
  '1.0': Wire10.TimelineEnvelope;
  '1.1': Wire11.TimelineEnvelope;
  '1.2': Wire12.TimelineEnvelope;
}

/** `skip`: the event does not cross the relay in this version (`tool.output`) and takes no sequence. */
export type TimelineProjection<V extends WireVersion> = { kind: 'event'; envelope: TimelineEnvelopeOf[V] } | { kind: 'skip' };

type RuntimeEvent = RuntimeTimeline.RuntimeTimelineEvent;
type ProjectedEvent = Wire12.TimelineEvent;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const EXPLANATION_MAX = 100;

/**
 * Projects a raw Runtime event envelope for Wire `version`. Returns issues (and the Companion answers
 * or drops with `COMPANION_ERROR`) when the input is malformed or the output would not validate.
 */
export function projectRuntimeEvent<V extends WireVersion>(version: V, runtimeEnvelope: unknown): Verdict<TimelineProjection<V>> {
  const input = validateRuntimeEventEnvelope(runtimeEnvelope);
  if (!input.ok) return input;
  const raw = input.value;
  const event = version === '1.0' ? rawEventFor10(raw.event) : projectEvent(raw.event, version === '1.2');
  if (event === undefined) return { ok: true, value: { kind: 'skip' } };
  const envelope = {
    // A Runtime label, not the Wire version: "1.0" stays, Runtime 1.1–1.5 are written as "1.1" (§2).
    protocolVersion: raw.protocolVersion === '1.0' ? '1.0' : '1.1',
    runtimeInstanceId: raw.runtimeInstanceId,
    sequence: raw.sequence,
    timestamp: raw.timestamp,
    threadId: raw.threadId,
    ...(raw.turnId !== undefined ? { turnId: raw.turnId } : {}),
    event,
  };
  const check = validateWireFrame(version, { type: 'runtime.event', workspaceId: NIL_UUID, relaySequence: 0, event: envelope });
  if (!check.ok) {
    return reject(...check.issues.map((found) => issue(found.code, found.path.replace(/^\/event/, ''), found.message)));
  }
  return { ok: true, value: { kind: 'event', envelope: envelope as TimelineEnvelopeOf[V] } };
}

/** Wire 1.0 carries the Runtime timeline unredacted, but predates Runtime 1.5's `appOutput`. */
function rawEventFor10(event: RuntimeEvent): Wire10.TimelineEvent {
  if (event.type !== 'tool.completed') return event;
  const { appOutput: _newer, ...rest } = event;
  return rest;
}

function projectEvent(event: RuntimeEvent, appOutput: boolean): ProjectedEvent | undefined {
  switch (event.type) {
    case 'turn.started':
    case 'turn.completed':
    case 'turn.cancelled':
    case 'capabilities.changed':
      return { type: event.type };
    case 'turn.failed':
      return { type: event.type, stage: event.stage };
    case 'message.started':
      return { type: event.type, streamId: event.streamId };
    case 'message.delta':
      return { type: event.type, streamId: event.streamId, delta: event.delta };
    case 'message.completed':
      return { type: event.type, streamId: event.streamId, text: event.text };
    case 'reasoning.summary.delta':
      return { type: event.type, reasoningId: event.reasoningId, delta: event.delta };
    case 'tool.started':
      return { type: event.type, toolCallId: event.toolCallId, agentName: event.agentName, toolName: event.toolName };
    case 'tool.output':
      return undefined;
    case 'tool.completed':
      return {
        type: event.type,
        toolCallId: event.toolCallId,
        agentName: event.agentName,
        toolName: event.toolName,
        ...(event.outcome ? { outcome: { kind: event.outcome.kind } } : {}),
        ...(appOutput && event.appOutput ? { appOutput: event.appOutput } : {}),
        ...(appOutput && event.operationId ? { operationId: event.operationId } : {}),
      };
    case 'approval.required':
      return { type: event.type, approval: projectApproval(event.approval) };
    case 'approval.resolved':
      return {
        type: event.type,
        approvalId: event.approvalId,
        resolution:
          event.resolution.status === 'resolved'
            ? { status: 'resolved', decision: event.resolution.decision }
            : { status: event.resolution.status },
      };
  }
}

export interface RuntimeApproval {
  id: string;
  agentName: string;
  toolName: string;
  preview: unknown;
}

export interface ApprovalProjection {
  approvalId: string;
  agentName: string;
  toolName: string;
  explanation?: string;
}

/**
 * The approval projection (§8): identity and the preview's `explanation`, trimmed and cut to 100
 * characters, omitted when absent or blank. Raw input, the rest of the preview and the reason never
 * appear.
 */
export function projectApproval(approval: RuntimeApproval): ApprovalProjection {
  const explanation = explanationOf(approval.preview);
  return {
    approvalId: approval.id,
    agentName: approval.agentName,
    toolName: approval.toolName,
    ...(explanation !== undefined ? { explanation } : {}),
  };
}

export function explanationOf(preview: unknown): string | undefined {
  if (preview === null || typeof preview !== 'object' || Array.isArray(preview)) return undefined;
  const raw = (preview as Record<string, unknown>)['explanation'];
  if (typeof raw !== 'string') return undefined;
  const trimmed = raw.trim();
  if (trimmed.length === 0) return undefined;
  // Cut on code points so a surrogate pair is never split; the schema counts code points too.
  const codePoints = Array.from(trimmed);
  return codePoints.length <= EXPLANATION_MAX ? trimmed : codePoints.slice(0, EXPLANATION_MAX).join('').trimEnd();
}
