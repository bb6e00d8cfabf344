import { OTHER_WORKSPACE, REQUEST, SENTINEL, THREAD, TURN, timelineEnvelope } from '../../test/support/sample-frames';
import { explanationOf, projectRuntimeEvent } from './runtime-event.projection';

const tool = { toolCallId: 'call-1', agentName: 'workspace-agent', toolName: 'deploy' };

/** Every raw Runtime event kind, each secret-bearing field carrying the sentinel. */
const RAW_EVENTS: Array<Record<string, unknown>> = [
  { type: 'turn.started' },
  { type: 'message.started', streamId: REQUEST },
  { type: 'message.delta', streamId: REQUEST, delta: 'visible transcript' },
  { type: 'message.completed', streamId: REQUEST, text: 'visible transcript' },
  { type: 'reasoning.summary.delta', reasoningId: 'r1', delta: 'visible summary' },
  { type: 'tool.started', ...tool, input: { command: `deploy --token ${SENTINEL}` } },
  { type: 'tool.output', ...tool, stream: 'stdout', delta: `secret output ${SENTINEL}` },
  {
    type: 'tool.completed',
    ...tool,
    operationId: OTHER_WORKSPACE,
    outcome: { kind: 'tool_failed', reason: `failed with ${SENTINEL}` },
    display: { stdout: SENTINEL },
    appOutput: { status: 'available', schemaId: 'deploy-report', schemaVersion: 2 },
  },
  {
    type: 'approval.required',
    approval: { id: REQUEST, turnId: TURN, agentName: tool.agentName, toolName: tool.toolName, preview: { explanation: 'Deploy to production', input: SENTINEL }, reason: SENTINEL },
  },
  { type: 'approval.resolved', approvalId: REQUEST, resolution: { status: 'resolved', decision: 'reject', reason: SENTINEL } },
  { type: 'approval.resolved', approvalId: REQUEST, resolution: { status: 'cancelled', reason: SENTINEL } },
  { type: 'approval.resolved', approvalId: REQUEST, resolution: { status: 'expired', reason: SENTINEL } },
  { type: 'turn.completed' },
  { type: 'turn.cancelled', reason: SENTINEL, message: SENTINEL },
  { type: 'turn.failed', stage: 'execute', message: SENTINEL },
  { type: 'capabilities.changed' },
];

describe('the timeline projection', () => {
  it('refuses a Runtime event whose free input nests 100,000 deep, without overflowing the stack', () => {
    let input: unknown = { command: SENTINEL };
    for (let level = 0; level < 100_000; level += 1) input = [input];
    for (const version of ['1.0', '1.1', '1.2'] as const) {
      const verdict = projectRuntimeEvent(version, timelineEnvelope({ type: 'tool.started', ...tool, input }));
      expect(verdict.ok).toBe(false);
      expect(JSON.stringify(verdict.ok ? verdict.value : verdict.issues)).not.toContain(SENTINEL);
    }
  });

  it.each(['1.1', '1.2'] as const)('never lets a secret-bearing Runtime field through to Wire %s', (version) => {
    for (const event of RAW_EVENTS) {
      const raw = { ...timelineEnvelope(event), id: `jsonrpc-${SENTINEL}`, eventCursor: SENTINEL };
      const verdict = projectRuntimeEvent(version, raw);
      expect(verdict.ok).toBe(true);
      expect(JSON.stringify(verdict)).not.toContain(SENTINEL);
    }
  });

  it('drops tool.output in 1.1/1.2, so it takes no relay sequence, but carries it in 1.0', () => {
    const output = timelineEnvelope(RAW_EVENTS[6]!);
    expect(projectRuntimeEvent('1.2', output)).toEqual({ ok: true, value: { kind: 'skip' } });
    const legacy = projectRuntimeEvent('1.0', output);
    expect(legacy.ok && legacy.value.kind).toBe('event');
  });

  it('keeps appOutput and operationId only in 1.2', () => {
    const completed = timelineEnvelope(RAW_EVENTS[7]!);
    const v12 = projectRuntimeEvent('1.2', completed);
    const v11 = projectRuntimeEvent('1.1', completed);
    expect(v12.ok && v12.value.kind === 'event' && v12.value.envelope.event).toEqual({
      type: 'tool.completed',
      ...tool,
      outcome: { kind: 'tool_failed' },
      appOutput: { status: 'available', schemaId: 'deploy-report', schemaVersion: 2 },
      operationId: OTHER_WORKSPACE,
    });
    expect(v11.ok && v11.value.kind === 'event' && v11.value.envelope.event).toEqual({ type: 'tool.completed', ...tool, outcome: { kind: 'tool_failed' } });
  });

  it('projects the approval to identity and explanation, and resolutions to their status', () => {
    const approval = projectRuntimeEvent('1.1', timelineEnvelope(RAW_EVENTS[8]!));
    expect(approval.ok && approval.value.kind === 'event' && approval.value.envelope.event).toEqual({
      type: 'approval.required',
      approval: { approvalId: REQUEST, agentName: tool.agentName, toolName: tool.toolName, explanation: 'Deploy to production' },
    });
    const resolved = projectRuntimeEvent('1.1', timelineEnvelope(RAW_EVENTS[9]!));
    expect(resolved.ok && resolved.value.kind === 'event' && resolved.value.envelope.event).toEqual({
      type: 'approval.resolved',
      approvalId: REQUEST,
      resolution: { status: 'resolved', decision: 'reject' },
    });
  });

  it('labels Runtime 1.1–1.5 envelopes "1.1" and keeps "1.0"', () => {
    for (const [label, expected] of [['1.5', '1.1'], ['1.1', '1.1'], ['1.0', '1.0']] as const) {
      const verdict = projectRuntimeEvent('1.2', { ...timelineEnvelope({ type: 'turn.started' }), protocolVersion: label });
      expect(verdict.ok && verdict.value.kind === 'event' && verdict.value.envelope.protocolVersion).toBe(expected);
    }
  });

  it('fails closed on malformed Runtime data', () => {
    const verdict = projectRuntimeEvent('1.2', { ...timelineEnvelope({ type: 'tool.started', ...tool }), threadId: THREAD });
    expect(verdict.ok).toBe(false);
    expect(projectRuntimeEvent('1.2', { event: { type: 'turn.started' } }).ok).toBe(false);
    expect(projectRuntimeEvent('1.2', timelineEnvelope({ type: 'tool.teleported' })).ok).toBe(false);
  });
});

describe('approval explanations', () => {
  it('are trimmed, cut to 100 characters and omitted when absent or blank', () => {
    expect(explanationOf({ explanation: '  Deploy  ' })).toBe('Deploy');
    expect(explanationOf({ explanation: 'é'.repeat(150) })).toHaveLength(100);
    expect(Array.from(explanationOf({ explanation: '😀'.repeat(120) })!)).toHaveLength(100);
    expect(explanationOf({ explanation: '   ' })).toBeUndefined();
    expect(explanationOf({ explanation: 42 })).toBeUndefined();
    expect(explanationOf('Deploy')).toBeUndefined();
    expect(explanationOf(null)).toBeUndefined();
  });
});
