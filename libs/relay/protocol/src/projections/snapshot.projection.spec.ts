import { OTHER_WORKSPACE, REQUEST, SENTINEL, THREAD, TURN } from '../../test/support/sample-frames';
import { projectOperationResult, projectThreadSnapshot } from './snapshot.projection';

const at = '2026-11-30T10:00:00Z';
const runtimeSnapshot = () => ({
  thread: { id: THREAD, title: 'Release', createdAt: at, updatedAt: at, messageCount: 2, workingDirectory: `/home/${SENTINEL}` },
  messages: {
    items: [
      { sequence: 0, role: 'user', createdAt: at, parts: [{ type: 'text', text: 'ship it' }] },
      { sequence: 1, role: 'assistant', createdAt: at, parts: [{ type: 'markdown', text: 'done' }, { type: 'image', data: SENTINEL }] },
    ],
    nextBeforeSequence: null,
  },
  operations: {
    items: [
      {
        id: OTHER_WORKSPACE,
        sequence: 0,
        toolCallId: 'call-1',
        agentName: 'agent',
        toolName: 'deploy',
        createdAt: at,
        outcome: { kind: 'success', reason: SENTINEL },
        display: { stdout: SENTINEL },
        rawInput: SENTINEL,
      },
    ],
    nextBeforeSequence: null,
  },
  activeTurn: { id: TURN, status: 'waiting-for-user', startedAt: at, pendingPrompt: SENTINEL },
  pendingApprovals: [{ id: REQUEST, turnId: TURN, agentName: 'agent', toolName: 'deploy', preview: { explanation: 'Ship', diff: SENTINEL }, reason: SENTINEL }],
  transcriptCompleteness: 'complete',
  pendingInteractions: [{ secret: SENTINEL }],
  eventCursor: SENTINEL,
});

describe('the snapshot projection (§9)', () => {
  it.each(['1.0', '1.1', '1.2'] as const)('leaks nothing and validates under Wire %s', (version) => {
    const verdict = projectThreadSnapshot(version, runtimeSnapshot());
    expect(verdict.ok).toBe(true);
    expect(JSON.stringify(verdict)).not.toContain(SENTINEL);
  });

  it('projects operations, approvals, turns and messages as §9 says', () => {
    const verdict = projectThreadSnapshot('1.2', runtimeSnapshot(), 'thread.open');
    if (!verdict.ok) throw new Error(JSON.stringify(verdict.issues));
    const snapshot = verdict.value;
    expect(snapshot.operations.items[0]).toEqual(expect.objectContaining({ display: null, outcome: { kind: 'success' }, appOutput: { status: 'not_provided' } }));
    expect(snapshot.pendingApprovals[0]).toEqual({ id: REQUEST, turnId: TURN, agentName: 'agent', toolName: 'deploy', preview: { explanation: 'Ship' } });
    expect(snapshot.activeTurn?.status).toBe('running');
    expect(snapshot.messages.items[1]!.parts).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('keeps only 1.2 app output descriptors', () => {
    const withOutput = runtimeSnapshot();
    (withOutput.operations.items[0] as any).appOutput = { status: 'rejected', reason: 'credential_field', field: 'token' };
    const v12 = projectThreadSnapshot('1.2', withOutput);
    const v11 = projectThreadSnapshot('1.1', withOutput);
    expect(v12.ok && v12.value.operations.items[0]!.appOutput).toEqual({ status: 'rejected', reason: 'credential_field', field: 'token' });
    expect(v11.ok && 'appOutput' in v11.value.operations.items[0]!).toBe(false);
  });

  it('fails closed on malformed Runtime data', () => {
    expect(projectThreadSnapshot('1.2', null).ok).toBe(false);
    expect(projectThreadSnapshot('1.2', { ...runtimeSnapshot(), thread: { id: THREAD } }).ok).toBe(false);
    const badOutcome = runtimeSnapshot();
    (badOutcome.operations.items[0] as any).outcome = { kind: 'exploded' };
    expect(projectThreadSnapshot('1.2', badOutcome).ok).toBe(false);
  });

  it('projects operation.get results, including a missing operation', () => {
    expect(projectOperationResult('1.2', null)).toEqual({ ok: true, value: { operation: null } });
    const verdict = projectOperationResult('1.1', runtimeSnapshot().operations.items[0]);
    expect(verdict.ok).toBe(true);
    expect(JSON.stringify(verdict)).not.toContain(SENTINEL);
  });
});
