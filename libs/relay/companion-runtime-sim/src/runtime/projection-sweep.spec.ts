/**
 * The sentinel sweep on the runtime side: drive every flow the simulated runtime has, then project
 * everything it emitted with the relay-protocol projections. Each projection must succeed (the raw
 * shapes are exactly the projections' input types) and nothing projected for Wire 1.1/1.2 may contain
 * the sentinel, while the raw data does.
 */
import {
  projectInteractionRequest,
  projectOperationResult,
  projectRuntimeEvent,
  projectThreadSnapshot,
  type RuntimeInteraction,
} from '@trustmesh/relay-protocol';

import type { ServerRequestResolution } from '@trustmesh/relay-companion';

import { recordedRuntime, SENTINEL, uuid } from './runtime-recorder.spec-support';
import type { AppOutputScript, TurnScript } from './turn-script';

const form = {
  title: 'Details',
  description: 'Tell the agent what to do',
  controls: [
    { type: 'text' as const, id: 'name', label: 'Name', required: true, minLength: 1, maxLength: 50 },
    { type: 'multiline' as const, id: 'notes', label: 'Notes', required: false },
    { type: 'number' as const, id: 'count', label: 'Count', required: true, min: 1, max: 9, integer: true },
    { type: 'boolean' as const, id: 'force', label: 'Force', required: false },
    { type: 'choice' as const, id: 'env', label: 'Environment', required: true, multiple: false, options: [{ id: 'dev', label: 'Dev' }, { id: 'prod', label: 'Prod', description: 'careful' }] },
    { type: 'choice' as const, id: 'tags', label: 'Tags', required: false, multiple: true, minSelections: 0, maxSelections: 2, options: [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }, { id: 'c', label: 'C' }] },
  ],
};

const appOutputs: AppOutputScript[] = [
  { status: 'available', schemaId: 'trustmesh.sim/test-report', schemaVersion: 1, remoteReadable: true, data: { passed: 1 }, fallbackText: '1 passed' },
  { status: 'available', schemaId: 'trustmesh.sim/statement', schemaVersion: 2, remoteReadable: false, data: { balance: 10 }, fallbackText: 'balance' },
  { status: 'rejected', reason: 'credential_value', field: 'token' },
  { status: 'rejected', reason: 'credential_field' },
  ...(['not_provided', 'invalid', 'too_large', 'expired', 'denied'] as const).map((status) => ({ status })),
];

const approvalTool = (tool: string) => ({
  kind: 'tool' as const,
  agent: 'assistant',
  tool,
  input: { command: tool },
  output: { stdout: 'ok\n', stderr: 'warning\n' },
  approval: { explanation: `  Run ${tool} — ${'x'.repeat(150)}  `, preview: { diff: '+++ secret' }, reason: 'policy says ask', expiresInMs: 60_000 },
});

const everything: TurnScript = {
  steps: [
    { kind: 'reasoning', text: 'Thinking about it.' },
    { kind: 'message', text: 'Starting. 🚀 Unicode survives chunking.' , chunkChars: 3 },
    ...appOutputs.map((appOutput, index) => ({ kind: 'tool' as const, agent: 'assistant', tool: 'run_tests', input: [index], appOutput })),
    { kind: 'tool', agent: 'researcher', tool: 'web_search', input: 'q', outcome: 'tool_failed', outcomeReason: 'HTTP 500' },
    { kind: 'tool', agent: 'assistant', tool: 'shell', input: null, outcome: 'policy_denied' },
    { kind: 'tool', agent: 'assistant', tool: 'shell', input: true, outcome: 'invalid_input' },
    approvalTool('approve_me'),
    approvalTool('reject_me'),
    approvalTool('expire_me'),
    approvalTool('abort_me'),
    { kind: 'userInput', form },
    { kind: 'userInput', form },
    { kind: 'userInput', form, expiresInMs: 10_000 },
    { kind: 'capabilitiesChanged' },
    { kind: 'message', text: 'Done.' },
  ],
};

async function driveEverything() {
  const recorded = recordedRuntime({ expiryGraceMs: 0 });
  const { runtime, clock } = recorded;
  const answer = async () => {
    // Answer each request as it comes, in the order the script raises them.
    const answers: Array<'expire' | 'abort' | 'runtime-expiry' | (() => ServerRequestResolution)> = [
      () => ({ method: 'approval.request' as const, decision: 'approve' as const }),
      () => ({ method: 'approval.request' as const, decision: 'reject' as const, reason: 'no' }),
      'expire',
      'abort',
      () => ({
        method: 'userInput.request' as const,
        response: { status: 'submitted' as const, values: [{ id: 'name', value: 'Ada' }, { id: 'count', value: 3 }, { id: 'env', value: 'dev' }, { id: 'tags', value: ['a'] }] },
      }),
      () => ({ method: 'userInput.request' as const, response: { status: 'cancelled' as const, reason: 'busy' } }),
      'runtime-expiry',
    ];
    for (const next of answers) {
      const before = recorded.requests.length;
      for (let guard = 0; recorded.requests.length === before && guard < 1000; guard++) clock.advance(50);
      const request = recorded.requests.at(-1);
      if (!request) throw new Error('no request');
      if (next === 'expire') await runtime.cancelServerRequest(request.serverRequestId, 'expired');
      else if (next === 'abort') await runtime.cancelServerRequest(request.serverRequestId, 'unbound');
      else if (next === 'runtime-expiry') clock.advance(11_000);
      else await runtime.resolveServerRequest(request.serverRequestId, next());
    }
    clock.runUntilIdle();
  };

  const main = await runtime.createThread({ requestId: uuid(1), title: 'Everything' });
  runtime.queueTurnScript(main.id, everything);
  await runtime.startTurn({ requestId: uuid(2), threadId: main.id, turnId: uuid(3), input: { text: 'do everything' } });
  await answer();

  // A failing turn, a turn cancelled at the machine, and one cancelled by the person mid-tool.
  runtime.queueTurnScript(main.id, { steps: [{ kind: 'fail', stage: 'execute', message: 'crashed' }] });
  await runtime.startTurn({ requestId: uuid(4), threadId: main.id, turnId: uuid(5), input: { text: 'fail' } });
  clock.runUntilIdle();
  runtime.queueTurnScript(main.id, { steps: [{ kind: 'cancel', reason: 'ctrl-c', message: 'stopped' }] });
  await runtime.startTurn({ requestId: uuid(6), threadId: main.id, turnId: uuid(7), input: { text: 'cancel' } });
  clock.runUntilIdle();
  runtime.queueTurnScript(main.id, { steps: [{ kind: 'tool', agent: 'assistant', tool: 'shell', input: {}, output: 'long running', durationMs: 10_000 }] });
  await runtime.startTurn({ requestId: uuid(8), threadId: main.id, turnId: uuid(9), input: { text: 'long' } });
  clock.advance(2_000);
  await runtime.cancelTurn({ requestId: uuid(10), threadId: main.id, turnId: uuid(9) });
  clock.runUntilIdle();

  // A default turn on a second thread, then a thread deleted while its turn waits for approval.
  const second = await runtime.createThread({ requestId: uuid(11) });
  await runtime.startTurn({ requestId: uuid(12), threadId: second.id, turnId: uuid(13), input: { text: 'hello' } });
  clock.runUntilIdle();
  const doomed = await runtime.createThread({ requestId: uuid(14), title: 'Doomed' });
  runtime.queueTurnScript(doomed.id, { steps: [approvalTool('never')] });
  await runtime.startTurn({ requestId: uuid(15), threadId: doomed.id, turnId: uuid(16), input: { text: 'wait' } });
  clock.advance(1_000);
  await runtime.deleteThread({ requestId: uuid(17), threadId: doomed.id });
  clock.runUntilIdle();
  return { recorded, threadIds: [main.id, second.id] };
}

describe('every raw event, request, snapshot and operation of the simulated runtime', () => {
  let drive: Awaited<ReturnType<typeof driveEverything>>;
  beforeAll(async () => {
    drive = await driveEverything();
  });

  it('covers every event type of the raw timeline', () => {
    const types = new Set(drive.recorded.types());
    for (const type of [
      'turn.started', 'turn.completed', 'turn.cancelled', 'turn.failed', 'message.started', 'message.delta', 'message.completed',
      'reasoning.summary.delta', 'tool.started', 'tool.output', 'tool.completed', 'approval.required', 'approval.resolved', 'capabilities.changed',
    ]) {
      expect(types).toContain(type);
    }
    const resolutions = new Set(drive.recorded.events.flatMap((envelope) => (envelope.event.type === 'approval.resolved' ? [JSON.stringify(Object.keys(envelope.event.resolution).sort()) + envelope.event.resolution.status] : [])));
    expect(resolutions.size).toBe(4); // approve, reject, expired, cancelled
    const outcomes = new Set(drive.recorded.events.flatMap((envelope) => (envelope.event.type === 'tool.completed' ? [envelope.event.outcome?.kind] : [])));
    expect([...outcomes].sort()).toEqual(['cancelled', 'invalid_input', 'policy_denied', 'success', 'tool_failed', 'user_rejected']);
  });

  it.each(['1.1', '1.2'] as const)('project for Wire %s with no sentinel left', (version) => {
    let secretBearing = 0;
    for (const envelope of drive.recorded.events) {
      if (JSON.stringify(envelope).includes(SENTINEL)) secretBearing++;
      const projected = projectRuntimeEvent(version, envelope);
      if (!projected.ok) throw new Error(`${envelope.event.type}: ${JSON.stringify(projected.issues)}`);
      expect(JSON.stringify(projected.value)).not.toContain(SENTINEL);
      if (envelope.event.type === 'tool.output') expect(projected.value.kind).toBe('skip');
      else expect(projected.value.kind).toBe('event');
    }
    expect(secretBearing).toBeGreaterThan(30);
  });

  it('project every event unredacted for Wire 1.0 (a local trust boundary)', () => {
    for (const envelope of drive.recorded.events) {
      const projected = projectRuntimeEvent('1.0', envelope);
      if (!projected.ok) throw new Error(`${envelope.event.type}: ${JSON.stringify(projected.issues)}`);
    }
  });

  it.each(['1.1', '1.2'] as const)('project every server request as an interaction for Wire %s', (version) => {
    expect(drive.recorded.requests.length).toBeGreaterThanOrEqual(8);
    drive.recorded.requests.forEach((request, index) => {
      expect(JSON.stringify(request)).toContain(SENTINEL);
      const identity = {
        workspaceId: uuid(1000),
        relaySequence: index,
        interactionId: request.interactionId ?? uuid(2000 + index),
        threadId: request.threadId,
        turnId: request.turnId,
        expiresAt: request.expiresAt ?? '2026-01-01T00:05:00.000Z',
      };
      const frame = projectInteractionRequest(version, identity, request.request as RuntimeInteraction);
      if (!frame.ok) throw new Error(JSON.stringify(frame.issues));
      expect(JSON.stringify(frame.value)).not.toContain(SENTINEL);
      if (frame.value.method === 'approval.request') expect(frame.value.projection.explanation?.length).toBe(100);
    });
  });

  it.each(['1.1', '1.2'] as const)('project snapshots and operations for Wire %s', async (version) => {
    const { runtime } = drive.recorded;
    for (const threadId of drive.threadIds) {
      const raw = await runtime.readThread({ threadId, limit: 500 });
      expect(JSON.stringify(raw)).toContain(SENTINEL);
      const snapshot = projectThreadSnapshot(version, raw);
      if (!snapshot.ok) throw new Error(JSON.stringify(snapshot.issues));
      expect(JSON.stringify(snapshot.value)).not.toContain(SENTINEL);
      for (const operation of raw.operations.items) {
        const single = projectOperationResult(version, await runtime.getOperation({ threadId, operationId: operation.id }));
        if (!single.ok) throw new Error(JSON.stringify(single.issues));
        expect(JSON.stringify(single.value)).not.toContain(SENTINEL);
      }
    }
  });

  it('keeps an app result for every operation, the non-remote-readable ones holding the sentinel', async () => {
    const { runtime } = drive.recorded;
    const [threadId] = drive.threadIds;
    const raw = await runtime.readThread({ threadId: threadId ?? '', limit: 500 });
    const results = await Promise.all(raw.operations.items.map((operation) => runtime.getOperationResult({ threadId: threadId ?? '', operationId: operation.id })));
    const statuses = results.map((result) => result?.output.status);
    expect(new Set(statuses)).toEqual(new Set(['available', 'rejected', 'not_provided', 'invalid', 'too_large', 'expired', 'denied']));
    const hidden = results.find((result) => result?.output.status === 'available' && !result.output.remoteReadable);
    expect(JSON.stringify(hidden)).toContain(SENTINEL);
    const readable = results.find((result) => result?.output.status === 'available' && result.output.remoteReadable);
    expect(JSON.stringify(readable)).not.toContain(SENTINEL);
  });
});
