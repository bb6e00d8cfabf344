import { isAgentRuntimeError } from '@trustmesh/relay-companion';

import { recordedRuntime, SENTINEL, uuid } from './runtime-recorder.spec-support';
import type { TurnScript } from './turn-script';

const approvalTurn = (expiresInMs?: number): TurnScript => ({
  steps: [
    {
      kind: 'tool',
      agent: 'assistant',
      tool: 'shell',
      input: { command: 'npm test' },
      output: 'all 12 tests passed\n',
      approval: { explanation: 'Run the test suite', reason: 'shell commands need approval', ...(expiresInMs ? { expiresInMs } : {}) },
    },
    { kind: 'message', text: 'Done.' },
  ],
});

async function threadWith(recorded: ReturnType<typeof recordedRuntime>, script?: TurnScript) {
  const thread = await recorded.runtime.createThread({ requestId: uuid(100), title: 'Fix the build' });
  if (script) recorded.runtime.queueTurnScript(thread.id, script);
  return thread;
}

describe('a turn', () => {
  it('streams the raw timeline of a real agent turn, in order, over time', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded);
    await expect(recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'What is in this repo?' } })).resolves.toEqual({
      turnId: uuid(2),
    });
    expect(recorded.events).toEqual([]); // nothing is emitted inside the call
    recorded.clock.runUntilIdle();

    const types = recorded.types();
    expect(types[0]).toBe('turn.started');
    expect(types.at(-1)).toBe('turn.completed');
    expect(types).toEqual(expect.arrayContaining(['reasoning.summary.delta', 'tool.started', 'tool.output', 'tool.completed', 'message.started', 'message.delta', 'message.completed']));
    expect(types.indexOf('tool.started')).toBeLessThan(types.indexOf('tool.output'));
    expect(types.indexOf('tool.output')).toBeLessThan(types.indexOf('tool.completed'));

    const deltas = recorded.events.flatMap((envelope) => (envelope.event.type === 'message.delta' ? [envelope.event.delta] : []));
    const completed = recorded.events.find((envelope) => envelope.event.type === 'message.completed');
    expect(deltas.length).toBeGreaterThan(1);
    expect(completed?.event).toMatchObject({ text: deltas.join('') });

    // Runtime sequences grow by one; timestamps follow the clock.
    expect(recorded.events.map((envelope) => envelope.sequence)).toEqual(recorded.events.map((_, index) => index + 1));
    expect(new Set(recorded.events.map((envelope) => envelope.timestamp)).size).toBeGreaterThan(3);
    expect(recorded.events.every((envelope) => envelope.turnId === uuid(2) && envelope.threadId === thread.id)).toBe(true);

    const snapshot = await recorded.runtime.readThread({ threadId: thread.id, limit: 100 });
    expect(snapshot.messages.items.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(snapshot.operations.items).toHaveLength(1);
    expect(snapshot.activeTurn).toBeNull();
    expect(snapshot.thread.messageCount).toBe(2);
  });

  it('puts the sentinel in raw secret-bearing fields only', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded);
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'hello' } });
    recorded.clock.runUntilIdle();
    const byType = (type: string) => recorded.events.find((envelope) => envelope.event.type === type)?.event;
    expect(JSON.stringify(byType('tool.started'))).toContain(SENTINEL);
    expect(JSON.stringify(byType('tool.output'))).toContain(SENTINEL);
    const completed = byType('tool.completed') as { display: unknown; outcome: { reason: string } };
    expect(JSON.stringify(completed.display)).toContain(SENTINEL);
    expect(completed.outcome.reason).toContain(SENTINEL);
    for (const type of ['message.delta', 'message.completed', 'reasoning.summary.delta', 'turn.started', 'turn.completed']) {
      expect(JSON.stringify(byType(type))).not.toContain(SENTINEL);
    }
  });

  it('refuses a second turn while one runs, reuses nothing, and is idempotent on the runtime requestId', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded);
    const start = { requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'one' } };
    await recorded.runtime.startTurn(start);
    await expect(recorded.runtime.startTurn(start)).resolves.toEqual({ turnId: uuid(2) });
    const busy = await recorded.runtime.startTurn({ ...start, requestId: uuid(3), turnId: uuid(4) }).catch((error: unknown) => error);
    expect(isAgentRuntimeError(busy) && busy.code).toBe('TURN_ALREADY_ACTIVE');
    expect((busy as Error).message).toContain(SENTINEL); // local error text, never sent
    recorded.clock.runUntilIdle();
    const reused = await recorded.runtime.startTurn({ ...start, requestId: uuid(5) }).catch((error: unknown) => error);
    expect(isAgentRuntimeError(reused) && reused.code).toBe('TURN_ID_IN_USE');
    const missing = await recorded.runtime.startTurn({ ...start, requestId: uuid(6), threadId: uuid(999) }).catch((error: unknown) => error);
    expect(isAgentRuntimeError(missing) && missing.code).toBe('THREAD_NOT_FOUND');
  });

  it('fails with a stage and a raw message', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded, { steps: [{ kind: 'reasoning', text: 'planning' }, { kind: 'fail', stage: 'plan', message: 'model overloaded' }] });
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'go' } });
    recorded.clock.runUntilIdle();
    expect(recorded.events.at(-1)?.event).toEqual({ type: 'turn.failed', stage: 'plan', message: `model overloaded [${SENTINEL}]` });
  });

  it('emits disconnect and restart directives where the script says', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded, { steps: [{ kind: 'message', text: 'a' }, { kind: 'disconnect', forMs: 2000 }, { kind: 'restart' }, { kind: 'message', text: 'b' }] });
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'go' } });
    recorded.clock.runUntilIdle();
    expect(recorded.directives).toEqual([{ kind: 'disconnect', forMs: 2000 }, { kind: 'restart', downMs: 0 }]);
    expect(recorded.types().at(-1)).toBe('turn.completed');
  });
});

describe('approvals', () => {
  async function waitingApproval(expiresInMs?: number) {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded, approvalTurn(expiresInMs));
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'run the tests' } });
    recorded.clock.advance(1_000);
    const [request] = recorded.requests;
    if (!request) throw new Error('no server request');
    return { recorded, thread, request };
  }

  it('raise a server request and wait for the person', async () => {
    const { recorded, thread, request } = await waitingApproval();
    expect(request).toMatchObject({ threadId: thread.id, turnId: uuid(2), request: { method: 'approval.request', sensitivity: 'normal' } });
    expect(request.interactionId).toMatch(/^[0-9a-f-]{36}$/);
    const required = recorded.events.find((envelope) => envelope.event.type === 'approval.required');
    expect(Date.parse(request.expiresAt ?? '')).toBe(Date.parse(required?.timestamp ?? '') + 5 * 60_000);
    expect(JSON.stringify(required)).toContain(SENTINEL);
    expect(recorded.types().at(-1)).toBe('approval.required');

    // Still waiting a minute later; the snapshot shows the pending approval and a waiting turn.
    recorded.clock.advance(60_000);
    expect(recorded.types().at(-1)).toBe('approval.required');
    const snapshot = await recorded.runtime.readThread({ threadId: thread.id, limit: 100 });
    expect(snapshot.activeTurn).toMatchObject({ id: uuid(2), status: 'waiting-for-user' });
    expect(snapshot.pendingApprovals).toHaveLength(1);
    expect(snapshot.pendingApprovals[0]?.preview).toMatchObject({ explanation: 'Run the test suite' });
  });

  it('continue the tool when approved', async () => {
    const { recorded, request } = await waitingApproval();
    await recorded.runtime.resolveServerRequest(request.serverRequestId, { method: 'approval.request', decision: 'approve' });
    recorded.clock.runUntilIdle();
    const after = recorded.types().slice(recorded.types().indexOf('approval.required') + 1);
    expect(after.slice(0, 2)).toEqual(['approval.resolved', 'tool.output']);
    expect(recorded.events.find((envelope) => envelope.event.type === 'tool.completed')?.event).toMatchObject({ outcome: { kind: 'success' } });
    expect(after.at(-1)).toBe('turn.completed');
    await expect(recorded.runtime.resolveServerRequest(request.serverRequestId, { method: 'approval.request', decision: 'approve' })).rejects.toMatchObject({
      code: 'SERVER_REQUEST_NOT_PENDING',
    });
  });

  it('end the tool as user_rejected when rejected, and the turn goes on', async () => {
    const { recorded, request } = await waitingApproval();
    await recorded.runtime.resolveServerRequest(request.serverRequestId, { method: 'approval.request', decision: 'reject', reason: 'not now' });
    recorded.clock.runUntilIdle();
    const resolved = recorded.events.find((envelope) => envelope.event.type === 'approval.resolved')?.event;
    expect(resolved).toMatchObject({ resolution: { status: 'resolved', decision: 'reject', reason: `not now [${SENTINEL}]` } });
    expect(recorded.events.find((envelope) => envelope.event.type === 'tool.completed')?.event).toMatchObject({ outcome: { kind: 'user_rejected' } });
    expect(recorded.types()).not.toContain('tool.output');
    expect(recorded.types().at(-1)).toBe('turn.completed');
  });

  it('refuse an answer of the wrong kind', async () => {
    const { recorded, request } = await waitingApproval();
    await expect(recorded.runtime.resolveServerRequest(request.serverRequestId, { method: 'userInput.request', response: { status: 'cancelled' } })).rejects.toMatchObject({
      code: 'SERVER_REQUEST_MISMATCH',
    });
  });

  it('expire when the Companion says so', async () => {
    const { recorded, request } = await waitingApproval(30_000);
    await recorded.runtime.cancelServerRequest(request.serverRequestId, 'expired');
    recorded.clock.runUntilIdle();
    expect(recorded.events.find((envelope) => envelope.event.type === 'approval.resolved')?.event).toMatchObject({ resolution: { status: 'expired' } });
    expect(recorded.events.find((envelope) => envelope.event.type === 'tool.completed')?.event).toMatchObject({ outcome: { kind: 'cancelled' } });
    expect(recorded.ended).toEqual([]); // the Companion ended it: it is not told again
  });

  it('expire on their own after the deadline and a grace period, telling the Companion', async () => {
    const recorded = recordedRuntime({ expiryGraceMs: 500 });
    const thread = await threadWith(recorded, approvalTurn(30_000));
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'run' } });
    recorded.clock.advance(1_000);
    const [request] = recorded.requests;
    const deadline = Date.parse(request?.expiresAt ?? '');
    recorded.clock.advance(deadline - recorded.clock.now() + 499);
    expect(recorded.ended).toEqual([]);
    recorded.clock.advance(1);
    expect(recorded.ended).toEqual([{ serverRequestId: request?.serverRequestId, outcome: 'cancelled' }]);
    recorded.clock.runUntilIdle();
    expect(recorded.events.find((envelope) => envelope.event.type === 'approval.resolved')?.event).toMatchObject({ resolution: { status: 'expired' } });
    expect(recorded.types().at(-1)).toBe('turn.completed');
  });

  it('can be answered at the machine, which the Companion learns as resolved', async () => {
    const recorded = recordedRuntime();
    const script = approvalTurn();
    const tool = script.steps[0];
    if (tool?.kind === 'tool' && tool.approval) tool.approval.autoRespond = { afterMs: 2_000, decision: 'approve' };
    const thread = await threadWith(recorded, script);
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'run' } });
    recorded.clock.runUntilIdle();
    expect(recorded.ended).toEqual([{ serverRequestId: recorded.requests[0]?.serverRequestId, outcome: 'resolved' }]);
    expect(recorded.types().at(-1)).toBe('turn.completed');
  });

  it('come without interaction id or deadline from a Runtime 1.1', async () => {
    const recorded = recordedRuntime({ runtimeProtocolVersion: '1.1' });
    const thread = await threadWith(recorded, approvalTurn());
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'run' } });
    recorded.clock.advance(1000);
    expect(recorded.requests[0]).not.toHaveProperty('interactionId');
    expect(recorded.requests[0]).not.toHaveProperty('expiresAt');
    expect(recorded.runtime.describe()).toMatchObject({ runtimeProtocolVersion: '1.1', appResults: false });
  });
});

describe('user input', () => {
  const form = {
    title: 'Deployment target',
    controls: [
      { type: 'choice' as const, id: 'region', label: 'Region', required: true, multiple: false, options: [{ id: 'eu', label: 'Europe' }, { id: 'us', label: 'US' }] },
      { type: 'text' as const, id: 'note', label: 'Note', required: false },
    ],
  };

  async function waitingForm() {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded, { steps: [{ kind: 'userInput', form }, { kind: 'message', text: 'Thanks.' }] });
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'deploy' } });
    recorded.clock.advance(1_000);
    const [request] = recorded.requests;
    if (!request) throw new Error('no server request');
    return { recorded, request };
  }

  it('waits for submitted values and records them as the tool result', async () => {
    const { recorded, request } = await waitingForm();
    expect(request.request).toMatchObject({ method: 'userInput.request', form: { title: 'Deployment target' } });
    expect(JSON.stringify(request.request)).toContain(SENTINEL);
    await recorded.runtime.resolveServerRequest(request.serverRequestId, {
      method: 'userInput.request',
      response: { status: 'submitted', values: [{ id: 'region', value: 'eu' }] },
    });
    recorded.clock.runUntilIdle();
    const output = recorded.events.find((envelope) => envelope.event.type === 'tool.output')?.event as { delta: string };
    expect(output.delta).toContain('"eu"');
    expect(recorded.events.find((envelope) => envelope.event.type === 'tool.completed')?.event).toMatchObject({ toolName: 'request_user_input', outcome: { kind: 'success' } });
    expect(recorded.types().at(-1)).toBe('turn.completed');
  });

  it('ends the tool as cancelled when the person cancels', async () => {
    const { recorded, request } = await waitingForm();
    await recorded.runtime.resolveServerRequest(request.serverRequestId, { method: 'userInput.request', response: { status: 'cancelled', reason: 'later' } });
    recorded.clock.runUntilIdle();
    const completed = recorded.events.find((envelope) => envelope.event.type === 'tool.completed')?.event as { outcome: { kind: string; reason: string } };
    expect(completed.outcome.kind).toBe('cancelled');
    expect(completed.outcome.reason).toContain('later');
  });
});

describe('cancelling a turn', () => {
  it('stops the script, aborts its pending request and ends with turn.cancelled', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded, approvalTurn());
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'run' } });
    recorded.clock.advance(1_000);
    await expect(recorded.runtime.cancelTurn({ requestId: uuid(3), threadId: thread.id, turnId: uuid(2) })).resolves.toEqual({ cancelling: true });
    await expect(recorded.runtime.cancelTurn({ requestId: uuid(4), threadId: thread.id, turnId: uuid(2) })).resolves.toEqual({ cancelling: true });
    expect((await recorded.runtime.readThread({ threadId: thread.id, limit: 10 })).activeTurn).toMatchObject({ status: 'cancelling' });
    recorded.clock.runUntilIdle();
    expect(recorded.ended).toEqual([{ serverRequestId: recorded.requests[0]?.serverRequestId, outcome: 'cancelled' }]);
    const tail = recorded.types().slice(-3);
    expect(tail).toEqual(['approval.resolved', 'tool.completed', 'turn.cancelled']);
    expect(recorded.events.at(-1)?.event).toMatchObject({ type: 'turn.cancelled', reason: `user_requested [${SENTINEL}]` });
    await expect(recorded.runtime.cancelTurn({ requestId: uuid(5), threadId: thread.id, turnId: uuid(2) })).resolves.toEqual({ cancelling: false });
    await expect(recorded.runtime.cancelTurn({ requestId: uuid(6), threadId: thread.id, turnId: uuid(77) })).rejects.toMatchObject({ code: 'TURN_NOT_FOUND' });
  });

  it('still reports turn.started when cancelled before the turn began', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded);
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'never mind' } });
    await expect(recorded.runtime.cancelTurn({ requestId: uuid(3), threadId: thread.id, turnId: uuid(2) })).resolves.toEqual({ cancelling: true });
    recorded.clock.runUntilIdle();
    expect(recorded.types()).toEqual(['turn.started', 'turn.cancelled']);
  });

  it('completes a half-streamed message with what was said so far', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded, { steps: [{ kind: 'message', text: 'a'.repeat(120), chunkChars: 10, chunkDelayMs: 100 }] });
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'talk' } });
    recorded.clock.advance(10 + 350);
    await recorded.runtime.cancelTurn({ requestId: uuid(3), threadId: thread.id, turnId: uuid(2) });
    recorded.clock.runUntilIdle();
    expect(recorded.types()).toEqual(['turn.started', 'message.started', 'message.delta', 'message.delta', 'message.delta', 'message.completed', 'turn.cancelled']);
    expect(recorded.events.find((envelope) => envelope.event.type === 'message.completed')?.event).toMatchObject({ text: 'a'.repeat(30) });
  });
});

describe('threads', () => {
  it('page backwards through many messages and operations', async () => {
    const recorded = recordedRuntime();
    const history = Array.from({ length: 250 }, (_, index) =>
      index % 5 === 4 ? { kind: 'tool' as const, agent: 'assistant', tool: 'shell', input: { n: index } } : { role: index % 2 ? ('assistant' as const) : ('user' as const), text: `m${index}` },
    );
    const thread = recorded.runtime.seedThread({ title: 'Long', history });
    const seen: number[] = [];
    let before: number | null | undefined;
    let pages = 0;
    do {
      const snapshot = await recorded.runtime.readThread({ threadId: thread.id, limit: 64, ...(before != null ? { messageBeforeSequence: before } : {}) });
      const sequences = snapshot.messages.items.map((message) => message.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      seen.unshift(...sequences);
      before = snapshot.messages.nextBeforeSequence;
      pages++;
    } while (before !== null);
    expect(pages).toBe(4);
    expect(seen).toHaveLength(200);
    expect(new Set(seen).size).toBe(200);

    const operations = await recorded.runtime.readThread({ threadId: thread.id, limit: 30 });
    expect(operations.operations.items).toHaveLength(30);
    const older = await recorded.runtime.readThread({ threadId: thread.id, limit: 30, operationBeforeSequence: operations.operations.nextBeforeSequence ?? 0 });
    expect(older.operations.items).toHaveLength(20);
    expect(older.operations.nextBeforeSequence).toBeNull();
    expect(older.operations.items.at(-1)?.sequence).toBeLessThan(operations.operations.items[0]?.sequence ?? 0);
  });

  it('list newest-updated first with numeric cursors, and rename, detach and delete', async () => {
    const recorded = recordedRuntime();
    const ids: string[] = [];
    for (let index = 0; index < 7; index++) {
      recorded.clock.advance(1000);
      ids.push((await recorded.runtime.createThread({ requestId: uuid(index), title: `t${index}` })).id);
    }
    await expect(recorded.runtime.createThread({ requestId: uuid(0), title: 'again' })).resolves.toMatchObject({ id: ids[0] });
    const first = await recorded.runtime.listThreads({ limit: 3 });
    expect(first.items.map((thread) => thread.title)).toEqual(['t6', 't5', 't4']);
    expect(first.nextCursor).toMatch(/^\d+$/);
    const second = await recorded.runtime.listThreads({ limit: 3, cursor: first.nextCursor ?? '' });
    const third = await recorded.runtime.listThreads({ limit: 3, cursor: second.nextCursor ?? '' });
    expect([...second.items, ...third.items].map((thread) => thread.title)).toEqual(['t3', 't2', 't1', 't0']);
    expect(third.nextCursor).toBeNull();

    recorded.clock.advance(1000);
    await expect(recorded.runtime.renameThread({ requestId: uuid(50), threadId: ids[0] ?? '', title: 'renamed' })).resolves.toMatchObject({ title: 'renamed' });
    expect((await recorded.runtime.listThreads({ limit: 1 })).items[0]?.title).toBe('renamed');

    await expect(recorded.runtime.detachThread({ requestId: uuid(51), threadId: ids[1] ?? '' })).resolves.toEqual({ detached: true });
    await expect(recorded.runtime.detachThread({ requestId: uuid(52), threadId: ids[1] ?? '' })).resolves.toEqual({ detached: false });
    await recorded.runtime.deleteThread({ requestId: uuid(53), threadId: ids[1] ?? '' });
    await expect(recorded.runtime.readThread({ threadId: ids[1] ?? '', limit: 10 })).rejects.toMatchObject({ code: 'THREAD_NOT_FOUND' });
    expect((await recorded.runtime.listThreads({ limit: 100 })).items).toHaveLength(6);
  });

  it('describe capabilities with app output for Runtime 1.5, and keep app results', async () => {
    const recorded = recordedRuntime();
    const thread = await threadWith(recorded, {
      steps: [
        {
          kind: 'tool',
          agent: 'assistant',
          tool: 'run_tests',
          input: {},
          appOutput: { status: 'available', schemaId: 'trustmesh.sim/test-report', schemaVersion: 1, remoteReadable: false, data: { passed: 3 }, fallbackText: '3 passed' },
        },
      ],
    });
    const manifest = await recorded.runtime.getCapabilities({ threadId: thread.id });
    expect(manifest).toMatchObject({ appOutput: { supported: true } });
    await recorded.runtime.startTurn({ requestId: uuid(1), threadId: thread.id, turnId: uuid(2), input: { text: 'test' } });
    recorded.clock.runUntilIdle();
    const completed = recorded.events.find((envelope) => envelope.event.type === 'tool.completed')?.event as { operationId: string; appOutput: unknown };
    expect(completed.appOutput).toEqual({ status: 'available', schemaId: 'trustmesh.sim/test-report', schemaVersion: 1 });
    const result = await recorded.runtime.getOperationResult({ threadId: thread.id, operationId: completed.operationId });
    expect(result?.output).toMatchObject({ status: 'available', remoteReadable: false, data: { passed: 3, secret: SENTINEL } });
    await expect(recorded.runtime.getOperation({ threadId: thread.id, operationId: completed.operationId })).resolves.toMatchObject({ toolName: 'run_tests' });
    await expect(recorded.runtime.getOperation({ threadId: thread.id, operationId: uuid(9) })).resolves.toBeNull();
    await expect(recorded.runtime.getOperationResult({ threadId: thread.id, operationId: uuid(9) })).resolves.toBeNull();
  });
});
