import { runtimeEvent, uuid } from '../../test/frames';
import { ThreadActivity } from './thread-activity';

describe('ThreadActivity', () => {
  const threadId = uuid();
  const turnId = uuid();
  const apply = (activity: ThreadActivity, event: Parameters<typeof runtimeEvent>[2]) => activity.apply(runtimeEvent(0, threadId, event, turnId).event);

  it('builds live text per stream and forgets a turn’s streams once the turn ends', () => {
    const activity = new ThreadActivity();
    const a = uuid();
    const b = uuid();
    apply(activity, { type: 'message.started', streamId: a });
    apply(activity, { type: 'message.delta', streamId: a, delta: 'one ' });
    apply(activity, { type: 'message.delta', streamId: b, delta: 'other' });
    expect(apply(activity, { type: 'message.delta', streamId: a, delta: 'two' })).toEqual([
      { kind: 'message', update: { threadId, turnId, streamId: a, text: 'one two', delta: 'two', completed: false } },
    ]);
    expect(activity.liveMessages(threadId).map((message) => message.text)).toEqual(['other', 'one two']);
    expect(apply(activity, { type: 'turn.failed', stage: 'execute' })).toEqual([{ kind: 'turn', update: { threadId, turnId, state: 'failed', stage: 'execute' } }]);
    expect(activity.liveMessages(threadId)).toEqual([]);
    expect(activity.turnOf(threadId)).toMatchObject({ state: 'failed' });
  });

  it('reports approvals from the timeline as read-only notices', () => {
    const activity = new ThreadActivity();
    const approvalId = uuid();
    expect(apply(activity, { type: 'approval.required', approval: { approvalId, agentName: 'builder', toolName: 'shell' } })).toEqual([
      { kind: 'approval', update: { threadId, turnId, approvalId, status: 'required', agentName: 'builder', toolName: 'shell' } },
    ]);
    expect(apply(activity, { type: 'approval.resolved', approvalId, resolution: { status: 'resolved', decision: 'reject' } })).toEqual([
      { kind: 'approval', update: { threadId, turnId, approvalId, status: 'resolved', decision: 'reject' } },
    ]);
    expect(apply(activity, { type: 'capabilities.changed' })).toEqual([{ kind: 'capabilities', update: { threadId } }]);
  });
});
