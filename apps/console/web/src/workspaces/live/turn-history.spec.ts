import type { ThreadSnapshot } from '@trustmesh/relay-client';

import { lastSequence, unsnapshotted, type TurnView } from './turn-history';

const turn = (overrides: Partial<TurnView> = {}): TurnView => ({
  key: 't1',
  threadId: 'th',
  turnId: 't1',
  state: 'started',
  messages: [],
  reasoning: [],
  tools: [],
  interactionIds: [],
  baseSequence: 1,
  ...overrides,
});

const snapshot = (messages: Array<[number, 'user' | 'assistant', string]>): ThreadSnapshot => ({
  thread: { id: 'th', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', messageCount: messages.length },
  messages: { items: messages.map(([sequence, role, text]) => ({ sequence, role, createdAt: '2026-01-01T00:00:00Z', parts: [{ type: 'text' as const, text }] })), nextBeforeSequence: null },
  operations: { items: [], nextBeforeSequence: null },
  pendingApprovals: [],
  transcriptCompleteness: 'complete',
});

describe('unsnapshotted: one source per message', () => {
  it('keeps streaming and completed messages the snapshot does not hold yet', () => {
    const card = turn({ prompt: 'Prepare the notes', messages: [{ streamId: 's1', text: 'Here are', completed: false }, { streamId: 's2', text: 'Done.', completed: true }] });
    const shown = unsnapshotted(card, snapshot([[1, 'user', 'Earlier']]), new Set());
    expect(shown.prompt).toBe('Prepare the notes');
    expect(shown.messages.map((message) => message.streamId)).toEqual(['s1', 's2']);
  });

  it('leaves out what a newer snapshot holds (the turn ended, a recovery, a reset)', () => {
    const card = turn({ prompt: 'Prepare the notes', messages: [{ streamId: 's1', text: 'Here are the notes.', completed: true }] });
    const shown = unsnapshotted(card, snapshot([[1, 'user', 'Earlier'], [2, 'user', 'Prepare the notes'], [3, 'assistant', 'Here are the notes.']]), new Set());
    expect(shown.prompt).toBeUndefined();
    expect(shown.messages).toEqual([]);
  });

  it('never lets a message from before the card stand in for one of its own', () => {
    const card = turn({ baseSequence: 2, messages: [{ streamId: 's1', text: 'OK', completed: true }] });
    expect(unsnapshotted(card, snapshot([[2, 'assistant', 'OK']]), new Set()).messages).toHaveLength(1);
  });

  it('matches each snapshot message once: two identical answers need two snapshot messages', () => {
    const used = new Set<number>();
    const first = turn({ key: 'a', messages: [{ streamId: 's1', text: 'OK', completed: true }] });
    const second = turn({ key: 'b', messages: [{ streamId: 's2', text: 'OK', completed: true }] });
    const held = snapshot([[5, 'assistant', 'OK']]);
    expect(unsnapshotted(first, held, used).messages).toHaveLength(0);
    expect(unsnapshotted(second, held, used).messages).toHaveLength(1);
  });

  it('never hides a message still streaming, even with the same text', () => {
    const card = turn({ messages: [{ streamId: 's1', text: 'Here', completed: false }] });
    expect(unsnapshotted(card, snapshot([[4, 'assistant', 'Here']]), new Set()).messages).toHaveLength(1);
  });

  it('leaves out a completed tool call once the snapshot lists its operation, never a running one', () => {
    const card = turn({
      tools: [
        { toolCallId: 'done', agentName: 'builder', toolName: 'git_log', status: 'completed', outcome: 'success' },
        { toolCallId: 'running', agentName: 'builder', toolName: 'test', status: 'started' },
      ],
    });
    const held = snapshot([]);
    const operation = (toolCallId: string) => ({ id: toolCallId, sequence: 3, toolCallId, agentName: 'builder', toolName: 'x', createdAt: '2026-01-01T00:00:00Z', outcome: { kind: 'success' as const }, display: null });
    held.operations.items.push(operation('done'), operation('running'));
    expect(unsnapshotted(card, held, new Set()).tools.map((tool) => tool.toolCallId)).toEqual(['running']);
    expect(unsnapshotted(card, snapshot([]), new Set()).tools).toHaveLength(2);
  });

  it('knows the newest snapshot sequence', () => {
    expect(lastSequence(undefined)).toBe(-1);
    expect(lastSequence(snapshot([[3, 'user', 'a'], [9, 'assistant', 'b'], [4, 'user', 'c']]))).toBe(9);
  });
});
