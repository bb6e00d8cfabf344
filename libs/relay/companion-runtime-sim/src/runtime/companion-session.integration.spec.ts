/**
 * The simulated runtime behind the real Companion core (`CompanionSession`), on one manual clock: a
 * person's whole session — threads, a turn with an approval and a form answered through
 * `interaction.candidate`, app results, a cancelled turn, an expired approval — produces only frames that
 * validate under the session's Wire version and never contain the sentinel.
 */
import { CompanionSession, createRequestPolicy } from '@trustmesh/relay-companion';
import { validateWireFrame } from '@trustmesh/relay-protocol';

import { companionClockOf, createManualClock } from '../clock/sim-clock';
import { SENTINEL, uuid } from './runtime-recorder.spec-support';
import { createSimulatedRuntime } from './simulated-runtime';

const WORKSPACE = uuid(0xabc);
type Frame = Record<string, unknown> & { type: string };

async function session(version: '1.1' | '1.2') {
  const clock = createManualClock();
  const runtime = createSimulatedRuntime({ clock, seed: 11, sentinel: SENTINEL });
  let ids = 0x9000;
  const core = new CompanionSession({
    workspaceId: WORKSPACE,
    wireVersion: version,
    runtime,
    clock: companionClockOf(clock),
    newId: () => uuid(ids++),
    policies: {
      request: createRequestPolicy({ allow: 'all' }),
      approval: () => 'allow',
      appResults: (agentName, toolName) => agentName === 'assistant' && toolName === 'run_tests',
    },
  });
  await core.start();
  const sent: string[] = [];
  const generation = core.connect(async (text) => {
    sent.push(text);
  });
  const frames = () => sent.map((text) => JSON.parse(text) as Frame);
  let requestIds = 0x100;
  const settle = async () => {
    for (let round = 0; round < 20; round++) await Promise.resolve();
    await core.flush();
  };
  const request = async (method: string, params: Record<string, unknown>) => {
    const requestId = uuid(requestIds++);
    await core.receive(JSON.stringify({ type: 'runtime.request', requestId, workspaceId: WORKSPACE, method, params }), generation);
    await settle();
    const response = frames().find((frame) => frame.type === 'runtime.response' && frame['requestId'] === requestId);
    if (!response) throw new Error(`no response to ${method}`);
    return response as Frame & { result?: Record<string, unknown>; error?: { code: string } };
  };
  /** Advances the clock until a frame matching `until` was sent. */
  const runUntil = async (until: (frame: Frame) => boolean) => {
    for (let step = 0; step < 10_000; step++) {
      if (frames().some(until)) return frames().find(until) as Frame;
      clock.advance(25);
      await settle();
    }
    throw new Error('never happened');
  };
  return { clock, runtime, core, sent, frames, request, runUntil, settle };
}

const isEvent = (type: string, turnId: string) => (frame: Frame) =>
  frame.type === 'runtime.event' && (frame['event'] as { turnId?: string; event: { type: string } }).turnId === turnId && (frame['event'] as { event: { type: string } }).event.type === type;

describe.each(['1.1', '1.2'] as const)('the simulated runtime behind CompanionSession (Wire %s)', (version) => {
  it('serves a whole session leak-free', async () => {
    const s = await session(version);
    const created = await s.request('thread.create', { requestId: uuid(1), title: 'Integration' });
    const thread = (created.result as { thread: { id: string } }).thread;
    s.runtime.queueTurnScript(thread.id, {
      steps: [
        { kind: 'reasoning', text: 'Check first.' },
        { kind: 'tool', agent: 'assistant', tool: 'shell', input: { command: 'make' }, output: 'built', approval: { explanation: 'Build the project', reason: 'needs approval' } },
        {
          kind: 'userInput',
          form: { title: 'Target', controls: [{ type: 'choice', id: 'env', label: 'Environment', required: true, multiple: false, options: [{ id: 'dev', label: 'Dev' }, { id: 'prod', label: 'Prod' }] }] },
        },
        {
          kind: 'tool',
          agent: 'assistant',
          tool: 'run_tests',
          input: {},
          appOutput: { status: 'available', schemaId: 'trustmesh.sim/test-report', schemaVersion: 1, remoteReadable: true, data: { passed: 5 }, fallbackText: '5 passed' },
        },
        { kind: 'tool', agent: 'researcher', tool: 'fetch_statement', input: {}, appOutput: { status: 'available', schemaId: 's', schemaVersion: 1, remoteReadable: false, data: { iban: 'x' }, fallbackText: 'statement' } },
        { kind: 'message', text: 'All done.' },
      ],
    });
    const turnId = uuid(2);
    expect((await s.request('turn.start', { requestId: uuid(3), threadId: thread.id, turnId, input: { text: 'build and test' } })).result).toEqual({ accepted: true, turnId });

    const approval = await s.runUntil((frame) => frame.type === 'interaction.request');
    expect(approval).toMatchObject({ method: 'approval.request', projection: { explanation: 'Build the project', agentName: 'assistant', toolName: 'shell' } });
    // The turn waits for the person.
    s.clock.advance(60_000);
    await s.settle();
    expect(s.frames().some(isEvent('tool.completed', turnId))).toBe(false);
    const approve = await s.request('interaction.candidate', {
      interactionId: approval['interactionId'],
      threadId: thread.id,
      turnId,
      method: 'approval.request',
      candidate: { decision: 'approve' },
    });
    expect(approve.result).toEqual({ accepted: true });

    const form = await s.runUntil((frame) => frame.type === 'interaction.request' && frame['method'] === 'userInput.request');
    const answer = await s.request('interaction.candidate', {
      interactionId: form['interactionId'],
      threadId: thread.id,
      turnId,
      method: 'userInput.request',
      candidate: { status: 'submitted', values: [{ id: 'env', value: 'prod' }] },
    });
    expect(answer.result).toEqual({ accepted: true });
    await s.runUntil(isEvent('turn.completed', turnId));
    expect(s.frames().filter((frame) => frame.type === 'interaction.resolved')).toHaveLength(2);

    const snapshot = await s.request('thread.snapshot', { threadId: thread.id, limit: 100 });
    const operations = (snapshot.result as { operations: { items: Array<{ id: string; toolName: string }> } }).operations.items;
    expect(operations.map((operation) => operation.toolName)).toEqual(['shell', 'request_user_input', 'run_tests', 'fetch_statement']);
    expect((await s.request('operation.get', { threadId: thread.id, operationId: operations[0]?.id })).result).toMatchObject({ operation: { toolName: 'shell', display: null } });
    if (version === '1.2') {
      const readable = await s.request('operation.result.get', { threadId: thread.id, operationId: operations[2]?.id });
      expect(readable.result).toMatchObject({ result: { output: { status: 'available', data: { passed: 5 } } } });
      const hidden = await s.request('operation.result.get', { threadId: thread.id, operationId: operations[3]?.id });
      expect(hidden.result).toMatchObject({ result: { output: { status: 'denied' } } });
    }
    expect((await s.request('thread.capabilities', { threadId: thread.id })).result).toHaveProperty('manifest');
    expect((await s.request('thread.list', { limit: 10 })).result).toMatchObject({ items: [{ id: thread.id, title: 'Integration' }], nextCursor: null });

    // A turn cancelled by the person mid-tool.
    s.runtime.queueTurnScript(thread.id, { steps: [{ kind: 'tool', agent: 'assistant', tool: 'shell', input: {}, output: 'slow', durationMs: 60_000 }] });
    const cancelled = uuid(4);
    await s.request('turn.start', { requestId: uuid(5), threadId: thread.id, turnId: cancelled, input: { text: 'slow' } });
    await s.runUntil(isEvent('tool.started', cancelled));
    expect((await s.request('turn.cancel', { requestId: uuid(6), threadId: thread.id, turnId: cancelled })).result).toEqual({ cancelling: true });
    await s.runUntil(isEvent('turn.cancelled', cancelled));

    // An approval nobody answers: the Companion's timer expires it and the turn goes on.
    s.runtime.queueTurnScript(thread.id, {
      steps: [{ kind: 'tool', agent: 'assistant', tool: 'shell', input: {}, approval: { explanation: 'Anyone?', expiresInMs: 30_000 } }, { kind: 'message', text: 'Nobody answered.' }],
    });
    const expiring = uuid(7);
    await s.request('turn.start', { requestId: uuid(8), threadId: thread.id, turnId: expiring, input: { text: 'wait' } });
    await s.runUntil((frame) => frame.type === 'interaction.cancelled');
    await s.runUntil(isEvent('turn.completed', expiring));

    // Errors of the runtime cross as codes only.
    const missing = await s.request('thread.open', { threadId: uuid(999) });
    expect(missing.error).toMatchObject({ code: 'THREAD_NOT_FOUND' });

    for (const text of s.sent) {
      expect(text).not.toContain(SENTINEL);
      const verdict = validateWireFrame(version, JSON.parse(text));
      if (!verdict.ok) throw new Error(`${text}: ${JSON.stringify(verdict.issues)}`);
    }
    expect(s.sent.length).toBeGreaterThan(40);
    await s.core.shutdown();
  });
});
