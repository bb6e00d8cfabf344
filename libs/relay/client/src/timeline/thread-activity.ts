/**
 * Turns applied timeline events into what a UI renders (BEHAVIOUR.md §6 "When applying frames"): live
 * text per message stream, reasoning summaries, tool activity, turn state, and the read-only approval
 * notices of the timeline. Pure: one event in, a list of UI events out.
 *
 * `approval.required` is informational only: answering needs the `interactionId` of an
 * `interaction.request`, which this module never synthesises (§8).
 */
import type { Wire12 } from '@trustmesh/relay-protocol';

type Envelope = Wire12.RuntimeEventFrame['event'];
type TimelineEvent = Envelope['event'];
type ToolCompleted = Extract<TimelineEvent, { type: 'tool.completed' }>;

export type TurnState = 'started' | 'completed' | 'cancelled' | 'failed';

export interface MessageUpdate {
  threadId: string;
  turnId?: string;
  streamId: string;
  /** The text so far (the final text once `completed`). */
  text: string;
  /** The piece this update added, for `message.delta`. */
  delta?: string;
  completed: boolean;
}

export interface ReasoningUpdate {
  threadId: string;
  turnId?: string;
  reasoningId: string;
  text: string;
  delta: string;
}

export interface ToolActivity {
  threadId: string;
  turnId?: string;
  toolCallId: string;
  agentName: string;
  toolName: string;
  status: 'started' | 'completed';
  outcome?: ToolCompleted['outcome'];
  appOutput?: Extract<ToolCompleted, { appOutput?: unknown }>['appOutput'];
  operationId?: string;
}

export interface TurnUpdate {
  threadId: string;
  turnId?: string;
  state: TurnState;
  stage?: 'bootstrap' | 'plan' | 'execute';
}

export interface ApprovalNotice {
  threadId: string;
  turnId?: string;
  approvalId: string;
  status: 'required' | 'resolved' | 'cancelled' | 'expired';
  agentName?: string;
  toolName?: string;
  explanation?: string;
  decision?: 'approve' | 'reject';
}

export type ActivityEvent =
  | { kind: 'message'; update: MessageUpdate }
  | { kind: 'reasoning'; update: ReasoningUpdate }
  | { kind: 'tool'; update: ToolActivity }
  | { kind: 'turn'; update: TurnUpdate }
  | { kind: 'approval'; update: ApprovalNotice }
  | { kind: 'capabilities'; update: { threadId: string } };

const MAX_STREAMS = 1_000;

export class ThreadActivity {
  private readonly messages = new Map<string, MessageUpdate>();
  private readonly reasoning = new Map<string, ReasoningUpdate>();
  private readonly turns = new Map<string, TurnUpdate>();

  apply(envelope: Envelope): ActivityEvent[] {
    const { threadId, turnId } = envelope;
    const event = envelope.event as TimelineEvent;
    const turn = turnId === undefined ? {} : { turnId };
    switch (event.type) {
      case 'message.started':
        return [{ kind: 'message', update: this.message(threadId, turn, event.streamId, () => '', false) }];
      case 'message.delta':
        return [{ kind: 'message', update: { ...this.message(threadId, turn, event.streamId, (text) => text + event.delta, false), delta: event.delta } }];
      case 'message.completed':
        return [{ kind: 'message', update: this.message(threadId, turn, event.streamId, () => event.text, true) }];
      case 'reasoning.summary.delta': {
        const previous = this.reasoning.get(event.reasoningId)?.text ?? '';
        const update: ReasoningUpdate = { threadId, ...turn, reasoningId: event.reasoningId, text: previous + event.delta, delta: event.delta };
        remember(this.reasoning, event.reasoningId, update);
        return [{ kind: 'reasoning', update }];
      }
      case 'tool.started':
        return [{ kind: 'tool', update: { threadId, ...turn, toolCallId: event.toolCallId, agentName: event.agentName, toolName: event.toolName, status: 'started' } }];
      case 'tool.completed': {
        const completed = event as ToolCompleted & { appOutput?: ToolActivity['appOutput']; operationId?: string };
        const update: ToolActivity = { threadId, ...turn, toolCallId: completed.toolCallId, agentName: completed.agentName, toolName: completed.toolName, status: 'completed' };
        if (completed.outcome) update.outcome = completed.outcome;
        if (completed.appOutput) update.appOutput = completed.appOutput;
        if (completed.operationId) update.operationId = completed.operationId;
        return [{ kind: 'tool', update }];
      }
      case 'approval.required': {
        const { approvalId, agentName, toolName, explanation } = event.approval;
        return [{ kind: 'approval', update: { threadId, ...turn, approvalId, status: 'required', agentName, toolName, ...(explanation === undefined ? {} : { explanation }) } }];
      }
      case 'approval.resolved': {
        const resolution = event.resolution;
        const update: ApprovalNotice = { threadId, ...turn, approvalId: event.approvalId, status: resolution.status };
        if (resolution.status === 'resolved') update.decision = resolution.decision;
        return [{ kind: 'approval', update }];
      }
      case 'turn.started':
      case 'turn.completed':
      case 'turn.cancelled':
      case 'turn.failed': {
        const state = event.type.slice('turn.'.length) as TurnState;
        const update: TurnUpdate = { threadId, ...turn, state };
        if (event.type === 'turn.failed') update.stage = event.stage;
        this.turns.set(threadId, update);
        if (state !== 'started') this.forgetTurn(threadId, turnId);
        return [{ kind: 'turn', update }];
      }
      case 'capabilities.changed':
        return [{ kind: 'capabilities', update: { threadId } }];
    }
  }

  /** The latest turn state of a thread, as far as this session saw it. */
  turnOf(threadId: string): TurnUpdate | undefined {
    return this.turns.get(threadId);
  }

  /** Live text of the streams of a thread that are still open in this session. */
  liveMessages(threadId: string): MessageUpdate[] {
    return [...this.messages.values()].filter((message) => message.threadId === threadId);
  }

  /** A stream reset: live state of the old stream is meaningless, snapshots rebuild it. */
  clear(): void {
    this.messages.clear();
    this.reasoning.clear();
    this.turns.clear();
  }

  private message(threadId: string, turn: { turnId?: string }, streamId: string, next: (text: string) => string, completed: boolean): MessageUpdate {
    const previous = this.messages.get(streamId);
    const update: MessageUpdate = { threadId, ...turn, streamId, text: next(previous?.text ?? ''), completed };
    remember(this.messages, streamId, update);
    return update;
  }

  /** A terminal turn's streams are final; the refreshed snapshot holds their text from now on. */
  private forgetTurn(threadId: string, turnId: string | undefined): void {
    for (const [key, message] of this.messages) if (message.threadId === threadId && message.turnId === turnId) this.messages.delete(key);
    for (const [key, reasoning] of this.reasoning) if (reasoning.threadId === threadId && reasoning.turnId === turnId) this.reasoning.delete(key);
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_STREAMS) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}
