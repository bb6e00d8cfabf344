/**
 * The turns this session saw stream in, and the one-source-per-message rule (see live-workspace.store.ts):
 * what a turn card still has to show once the thread's snapshot is known. Pure, so the rule is tested alone.
 */
import type { ThreadSnapshot } from '@trustmesh/relay-client';

export interface LiveMessage {
  streamId: string;
  text: string;
  completed: boolean;
}

export interface LiveTool {
  toolCallId: string;
  agentName: string;
  toolName: string;
  status: 'started' | 'completed';
  outcome?: string;
}

export interface TurnView {
  key: string;
  threadId: string;
  turnId?: string;
  /** `ended`: it ended in frames the page missed (a gap or a reset); the thread's history shows how. */
  state: 'started' | 'completed' | 'cancelled' | 'failed' | 'ended';
  stage?: string;
  /** The prompt, when this page started the turn. */
  prompt?: string;
  messages: LiveMessage[];
  reasoning: Array<{ reasoningId: string; text: string }>;
  tools: LiveTool[];
  interactionIds: string[];
  /** The highest snapshot message sequence known when the card began: only later messages can stand in for it. */
  baseSequence: number;
}

export function lastSequence(snapshot: ThreadSnapshot | undefined): number {
  const items = snapshot?.messages.items ?? [];
  let highest = -1;
  for (const item of items) if (item.sequence > highest) highest = item.sequence;
  return highest;
}

/**
 * The part of each turn card the snapshot does not hold yet: a completed message or the person's prompt is
 * left out once a snapshot message newer than the card's start has the same role and text (each snapshot
 * message stands in for one card item only); a completed tool call once the snapshot lists its operation
 * (same `toolCallId`).
 */
export function unsnapshotted(turn: TurnView, snapshot: ThreadSnapshot | undefined, used: Set<number>): { prompt?: string; messages: LiveMessage[]; tools: LiveTool[] } {
  const items = snapshot?.messages.items ?? [];
  const take = (role: 'user' | 'assistant', text: string): boolean => {
    const match = items.find((item) => item.sequence > turn.baseSequence && !used.has(item.sequence) && item.role === role && item.parts.map((part) => part.text).join('') === text);
    if (!match) return false;
    used.add(match.sequence);
    return true;
  };
  const prompt = turn.prompt !== undefined && !take('user', turn.prompt) ? turn.prompt : undefined;
  const messages = turn.messages.filter((message) => !(message.completed && take('assistant', message.text)));
  const operations = new Set((snapshot?.operations.items ?? []).map((operation) => operation.toolCallId));
  const tools = turn.tools.filter((tool) => !(tool.status === 'completed' && operations.has(tool.toolCallId)));
  return { ...(prompt === undefined ? {} : { prompt }), messages, tools };
}
