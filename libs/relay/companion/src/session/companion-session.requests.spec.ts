/**
 * Request processing (§4, §5, §8 steps 1–5, §10, §11) through the session.
 */
import { createRequestPolicy, productionRequestPolicy } from '../policy/companion-policies';
import {
  deferred,
  OPERATION,
  OTHER_WORKSPACE,
  rawEvent,
  rawOperationResult,
  rawSnapshot,
  rawThread,
  runtimeFailure,
  SENTINEL,
  THREAD,
  TURN,
  uuid,
  WORKSPACE,
} from '../testing/scripted-runtime';
import { Harness } from '../testing/session-harness';

const RUNTIME_REQUEST = uuid(77);
const errorOf = (response: Record<string, unknown> | undefined) => (response?.['error'] as { code: string; retryable: boolean; message: string } | undefined);
const resultOf = (response: Record<string, unknown> | undefined) => response?.['result'] as Record<string, any>;

describe('step 1: invalid frames are dropped silently', () => {
  it.each([
    ['bad JSON', '{"type":', 'FRAME_NOT_JSON'],
    ['an unknown frame type', JSON.stringify({ type: 'runtime.future', workspaceId: WORKSPACE }), 'FRAME_TYPE_UNKNOWN'],
    ['a frame the relay never sends a companion', JSON.stringify({ type: 'runtime.gap', workspaceId: WORKSPACE, fromRelaySequence: 0, throughRelaySequence: 0, recovery: 'thread.snapshot' }), 'FRAME_DIRECTION_FORBIDDEN'],
    ['an unknown method', JSON.stringify({ type: 'runtime.request', requestId: uuid(1), workspaceId: WORKSPACE, method: 'runtime.futureMethod', params: {} }), 'FIELD_VALUE'],
    ['an extra field', JSON.stringify({ type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: 0, secret: SENTINEL }), 'FIELD_NOT_ALLOWED'],
    ['a repeated key (the first `method` a mutation nobody validated)', JSON.stringify({ type: 'runtime.request', requestId: uuid(1), workspaceId: WORKSPACE, method: 'thread.list', params: {} }).replace('"method"', '"method":"thread.delete","method"'), 'FRAME_DUPLICATE_KEY'],
    ['params nested 9,000 deep', `{"type":"runtime.request","requestId":"${uuid(1)}","workspaceId":"${WORKSPACE}","method":"thread.list","params":${'['.repeat(9_000)}${']'.repeat(9_000)}}`, 'FRAME_TOO_DEEP'],
    ['an envelope on a cipher-less workspace', JSON.stringify({ type: 'runtime.encrypted', workspaceId: WORKSPACE, envelopeId: uuid(1), payloadKind: 'request', requestId: uuid(2), algorithm: 'x', nonce: 'n', ciphertext: 'c' }), 'FRAME_DIRECTION_FORBIDDEN'],
  ])('%s', async (_name, text, reason) => {
    const harness = await Harness.started();
    expect(await harness.session.receive(text, harness.generation)).toEqual({ kind: 'dropped', reason });
    await harness.flush();
    expect(harness.sent).toEqual([]);
    expect(harness.session.stats().inboundDropped).toBe(1);
    expect(harness.diagnostics).toContainEqual({ event: 'inbound-dropped', code: reason });
  });

  it('binary frames and frames over the inbound limit', async () => {
    const harness = await Harness.started({ limits: { maxInboundFrameBytes: 64 } });
    const frame = JSON.stringify(harness.requestFrame('thread.list', { limit: 1 }));
    expect(await harness.session.receive(frame, harness.generation)).toEqual({ kind: 'dropped', reason: 'FRAME_TOO_LARGE' });
    expect(await harness.session.receive(new TextEncoder().encode('{}'), harness.generation, true)).toEqual({ kind: 'dropped', reason: 'FRAME_NOT_TEXT' });
  });

  it('a 1.2-only method on a 1.1 session', async () => {
    const harness = await Harness.started({ wireVersion: '1.1' });
    const { result, response } = await harness.request('operation.result.get', { threadId: THREAD, operationId: OPERATION });
    expect(result).toEqual({ kind: 'dropped', reason: 'FIELD_VALUE' });
    expect(response).toBeUndefined();
  });
});

describe('step 2: the request policy, before the cache', () => {
  it('the production policy admits §8 methods and denies the rest with REMOTE_REQUEST_DENIED', async () => {
    const harness = await Harness.started({ policies: { request: productionRequestPolicy } });
    expect(errorOf((await harness.request('thread.list', { limit: 5 })).response)).toBeUndefined();
    for (const [method, params] of [
      ['thread.rename', { requestId: RUNTIME_REQUEST, threadId: THREAD, title: 'x' }],
      ['thread.delete', { requestId: RUNTIME_REQUEST, threadId: THREAD }],
      ['thread.detach', { requestId: RUNTIME_REQUEST, threadId: THREAD }],
      ['initialize', { protocolVersions: ['1.1'], client: { name: 'b', version: '1' } }],
    ] as const) {
      const error = errorOf((await harness.request(method, params)).response);
      expect([method, error]).toEqual([method, { code: 'REMOTE_REQUEST_DENIED', message: expect.any(String), retryable: false }]);
    }
    expect(harness.runtime.calls).toEqual(['listThreads']);
  });

  it('production admits operation.result.get only with 1.2 app results', async () => {
    const withResults = await Harness.started({ policies: { request: productionRequestPolicy } });
    expect(errorOf((await withResults.request('operation.result.get', { threadId: THREAD, operationId: OPERATION })).response)).toBeUndefined();
    const without = await Harness.started({ policies: { request: productionRequestPolicy } });
    without.runtime.description = { ...without.runtime.description, appResults: false };
    expect(errorOf((await without.request('operation.result.get', { threadId: THREAD, operationId: OPERATION })).response)?.code).toBe('REMOTE_REQUEST_DENIED');
  });

  it('a policy that throws denies', async () => {
    const harness = await Harness.started({
      policies: {
        request: () => {
          throw new Error(SENTINEL);
        },
      },
    });
    expect(errorOf((await harness.request('thread.list', { limit: 5 })).response)?.code).toBe('REMOTE_REQUEST_DENIED');
  });

  it('denied requests never enter the cache', async () => {
    let open = false;
    const harness = await Harness.started({ policies: { request: () => open } });
    const requestId = uuid(42);
    const params = { requestId: RUNTIME_REQUEST, title: 'A' };
    expect(errorOf((await harness.request('thread.create', params, { requestId })).response)?.code).toBe('REMOTE_REQUEST_DENIED');
    open = true;
    expect(resultOf((await harness.request('thread.create', { ...params, title: 'other' }, { requestId })).response)?.['thread']?.title).toBe('other');
  });

  it('createRequestPolicy: deny lists win over allow lists', async () => {
    const harness = await Harness.started({ policies: { request: createRequestPolicy({ allow: 'all', deny: ['turn.cancel'] }) } });
    expect(errorOf((await harness.request('turn.cancel', { requestId: RUNTIME_REQUEST, threadId: THREAD, turnId: TURN })).response)?.code).toBe('REMOTE_REQUEST_DENIED');
    expect(errorOf((await harness.request('thread.detach', { requestId: RUNTIME_REQUEST, threadId: THREAD })).response)).toBeUndefined();
  });
});

describe('steps 3–5: workspace, idempotency, local-only, params', () => {
  it('a foreign workspace: REMOTE_REQUEST_DENIED under the production policy, WORKSPACE_NOT_FOUND otherwise', async () => {
    const production = await Harness.started({ policies: { request: productionRequestPolicy } });
    const denied = (await production.request('thread.list', { limit: 5 }, { workspaceId: OTHER_WORKSPACE })).response;
    expect(denied).toEqual(expect.objectContaining({ workspaceId: OTHER_WORKSPACE, error: expect.objectContaining({ code: 'REMOTE_REQUEST_DENIED' }) }));
    const open = await Harness.started();
    expect(errorOf((await open.request('thread.list', { limit: 5 }, { workspaceId: OTHER_WORKSPACE })).response)?.code).toBe('WORKSPACE_NOT_FOUND');
    expect(open.runtime.calls).toEqual([]);
  });

  it('initialize is local-only: COMPANION_ERROR when policy lets it through', async () => {
    const harness = await Harness.started();
    const error = errorOf((await harness.request('initialize', { protocolVersions: ['1.2'], client: { name: 'b', version: '1' } })).response);
    expect(error).toEqual({ code: 'COMPANION_ERROR', message: 'The companion could not complete the request.', retryable: false });
  });

  it('params failing the method schema: INVALID_PARAMS', async () => {
    const harness = await Harness.started();
    expect(errorOf((await harness.request('thread.list', { limit: 0 })).response)?.code).toBe('INVALID_PARAMS');
    expect(errorOf((await harness.request('turn.start', { requestId: RUNTIME_REQUEST, threadId: THREAD, turnId: TURN })).response)?.code).toBe('INVALID_PARAMS');
    expect(
      errorOf((await harness.request('interaction.candidate', { interactionId: uuid(1), threadId: THREAD, turnId: TURN, method: 'approval.request', candidate: { status: 'submitted', values: [] } })).response)
        ?.code,
    ).toBe('INVALID_PARAMS');
    expect(harness.runtime.calls).toEqual([]);
  });

  it('a replayed mutation returns the original response without running again (key order ignored)', async () => {
    const harness = await Harness.started();
    const requestId = uuid(50);
    const first = await harness.request('thread.create', { requestId: RUNTIME_REQUEST, title: 'A' }, { requestId });
    const again = await harness.request('thread.create', { title: 'A', requestId: RUNTIME_REQUEST }, { requestId });
    expect(again.response).toEqual(first.response);
    expect(harness.runtime.calls).toEqual(['createThread']);
  });

  it('a replay while the mutation is in flight shares its result', async () => {
    const harness = await Harness.started();
    const gate = deferred<ReturnType<typeof rawThread>>();
    harness.runtime.createThreadHandler = () => gate.promise;
    const requestId = uuid(51);
    const first = harness.request('thread.create', { requestId: RUNTIME_REQUEST }, { requestId });
    const second = harness.request('thread.create', { requestId: RUNTIME_REQUEST }, { requestId });
    gate.resolve(rawThread(uuid(3), 'Shared'));
    const [a, b] = await Promise.all([first, second]);
    expect(resultOf(a.response)).toEqual(resultOf(b.response));
    expect(harness.runtime.calls).toEqual(['createThread']);
  });

  it('other in-flight mutations survive a reconnect and a retry on the new generation joins them', async () => {
    const harness = await Harness.started();
    const gate = deferred<{ turnId: string }>();
    harness.runtime.startTurnHandler = () => gate.promise;
    const requestId = uuid(52);
    const params = { requestId: RUNTIME_REQUEST, threadId: THREAD, turnId: TURN, input: { text: 'go' } };
    const lost = harness.request('turn.start', params, { requestId });
    await Promise.resolve();
    harness.connect();
    const retry = harness.request('turn.start', params, { requestId });
    gate.resolve({ turnId: TURN });
    expect((await lost).result).toEqual(expect.objectContaining({ sent: false }));
    expect(resultOf((await retry).response)).toEqual({ accepted: true, turnId: TURN });
    expect(harness.runtime.calls).toEqual(['startTurn']);
  });

  it('the same requestId with other params or method: RELAY_REQUEST_ID_CONFLICT', async () => {
    const harness = await Harness.started();
    const requestId = uuid(53);
    await harness.request('thread.rename', { requestId: RUNTIME_REQUEST, threadId: THREAD, title: 'A' }, { requestId });
    expect(errorOf((await harness.request('thread.rename', { requestId: RUNTIME_REQUEST, threadId: THREAD, title: 'B' }, { requestId })).response)).toEqual({
      code: 'RELAY_REQUEST_ID_CONFLICT',
      message: expect.any(String),
      retryable: false,
    });
    expect(errorOf((await harness.request('thread.delete', { requestId: RUNTIME_REQUEST, threadId: THREAD }, { requestId })).response)?.code).toBe('RELAY_REQUEST_ID_CONFLICT');
    expect(harness.runtime.calls).toEqual(['renameThread']);
  });

  it('invalid mutations are cached like any other outcome', async () => {
    const harness = await Harness.started();
    const requestId = uuid(54);
    expect(errorOf((await harness.request('thread.create', { title: '' }, { requestId })).response)?.code).toBe('INVALID_PARAMS');
    expect(errorOf((await harness.request('thread.create', { title: '' }, { requestId })).response)?.code).toBe('INVALID_PARAMS');
    expect(errorOf((await harness.request('thread.create', { title: 'x' }, { requestId })).response)?.code).toBe('RELAY_REQUEST_ID_CONFLICT');
  });

  it('queries are never cached: reusing a query requestId never conflicts', async () => {
    const harness = await Harness.started();
    const requestId = uuid(55);
    await harness.request('thread.list', { limit: 5 }, { requestId });
    expect(errorOf((await harness.request('thread.open', { threadId: THREAD }, { requestId })).response)).toBeUndefined();
    expect(errorOf((await harness.request('thread.list', { limit: 9 }, { requestId })).response)).toBeUndefined();
    expect(harness.runtime.calls).toEqual(['listThreads', 'readThread', 'listThreads']);
    expect(harness.session.stats().idempotencySettled).toBe(0);
  });

  it('keeps at most `idempotencyEntries` settled mutations, least recently used out first', async () => {
    const harness = await Harness.started({ limits: { idempotencyEntries: 2 } });
    const create = (n: number) => harness.request('thread.create', { requestId: RUNTIME_REQUEST, title: `t${n}` }, { requestId: uuid(60 + n) });
    await create(1);
    await create(2);
    await create(1); // hit: refreshes 1
    await create(3); // evicts 2
    expect(harness.runtime.calls.length).toBe(3);
    await create(1);
    expect(harness.runtime.calls.length).toBe(3);
    await create(2);
    expect(harness.runtime.calls.length).toBe(4);
  });
});

describe('runtime failures (§10): only code and retryable cross', () => {
  it.each([
    [runtimeFailure('THREAD_NOT_FOUND'), { code: 'THREAD_NOT_FOUND', retryable: false }],
    [runtimeFailure('RUNTIME_BUSY', true), { code: 'RUNTIME_BUSY', retryable: true }],
    [runtimeFailure(-32601), { code: 'JSON_RPC_-32601', retryable: false }],
    [runtimeFailure(`bad code ${SENTINEL}`), { code: 'COMPANION_ERROR', retryable: false }],
    [new Error(SENTINEL), { code: 'COMPANION_ERROR', retryable: false }],
  ])('%#', async (failure, expected) => {
    const harness = await Harness.started();
    harness.runtime.readThreadHandler = () => Promise.reject(failure);
    const { response } = await harness.request('thread.open', { threadId: THREAD });
    expect(errorOf(response)).toEqual({ ...expected, message: expect.any(String) });
    expect(JSON.stringify(response)).not.toContain(SENTINEL);
  });

  it('a retryable failure is not cached: a retry with the same requestId runs again', async () => {
    const harness = await Harness.started();
    let attempts = 0;
    harness.runtime.cancelTurnHandler = async () => {
      attempts += 1;
      if (attempts === 1) throw runtimeFailure('RUNTIME_BUSY', true);
      return { cancelling: true };
    };
    const requestId = uuid(70);
    const params = { requestId: RUNTIME_REQUEST, threadId: THREAD, turnId: TURN };
    expect(errorOf((await harness.request('turn.cancel', params, { requestId })).response)?.retryable).toBe(true);
    expect(resultOf((await harness.request('turn.cancel', params, { requestId })).response)).toEqual({ cancelling: true });
  });
});

describe('results (§4, §9): projected, validated, fail closed', () => {
  it('thread.list, create, rename carry thread summaries only', async () => {
    const harness = await Harness.started();
    const list = resultOf((await harness.request('thread.list', { limit: 2, cursor: '0' })).response);
    expect(list).toEqual({
      items: [
        { id: THREAD, title: 'Release', createdAt: expect.any(String), updatedAt: expect.any(String), messageCount: 2 },
        expect.objectContaining({ id: uuid(2) }),
      ],
      nextCursor: '2',
    });
    const created = resultOf((await harness.request('thread.create', { requestId: RUNTIME_REQUEST, title: 'New' })).response);
    expect(Object.keys(created['thread']).sort()).toEqual(['createdAt', 'id', 'messageCount', 'title', 'updatedAt']);
    expect(resultOf((await harness.request('thread.rename', { requestId: RUNTIME_REQUEST, threadId: THREAD, title: 'R' })).response)['thread'].title).toBe('R');
  });

  it('thread.open reads the newest page; thread.snapshot passes its paging through', async () => {
    const harness = await Harness.started();
    const seen: unknown[] = [];
    harness.runtime.readThreadHandler = async (params) => {
      seen.push(params);
      return rawSnapshot();
    };
    const open = resultOf((await harness.request('thread.open', { threadId: THREAD })).response);
    expect(open['activeTurn'].status).toBe('running');
    expect(open['operations'].items[0]).toEqual(expect.objectContaining({ display: null, outcome: { kind: 'success' }, appOutput: expect.any(Object) }));
    await harness.request('thread.snapshot', { threadId: THREAD, messageBeforeSequence: 7, operationBeforeSequence: 3, limit: 20 });
    expect(seen).toEqual([
      { threadId: THREAD, limit: 100 },
      { threadId: THREAD, messageBeforeSequence: 7, operationBeforeSequence: 3, limit: 20 },
    ]);
  });

  it('thread.delete, thread.detach, turn.start, turn.cancel, operation.get', async () => {
    const harness = await Harness.started();
    expect(resultOf((await harness.request('thread.delete', { requestId: RUNTIME_REQUEST, threadId: THREAD })).response)).toEqual({ deleted: true });
    expect(resultOf((await harness.request('thread.detach', { requestId: RUNTIME_REQUEST, threadId: THREAD })).response)).toEqual({ detached: true });
    expect(resultOf((await harness.request('turn.start', { requestId: RUNTIME_REQUEST, threadId: THREAD, turnId: TURN, input: { text: 'go' } })).response)).toEqual({ accepted: true, turnId: TURN });
    expect(resultOf((await harness.request('turn.cancel', { requestId: RUNTIME_REQUEST, threadId: THREAD, turnId: TURN })).response)).toEqual({ cancelling: true });
    const operation = resultOf((await harness.request('operation.get', { threadId: THREAD, operationId: OPERATION })).response);
    expect(operation['operation']).toEqual(expect.objectContaining({ id: OPERATION, display: null, outcome: { kind: 'success' }, appOutput: { status: 'not_provided' } }));
    harness.runtime.operationHandler = async () => null;
    expect(resultOf((await harness.request('operation.get', { threadId: THREAD, operationId: OPERATION })).response)).toEqual({ operation: null });
  });

  it('thread.capabilities in 1.2 reports app output support and the live grant per tool', async () => {
    const harness = await Harness.started({ policies: { appResults: (agent, tool) => agent === 'agent' && tool === 'deploy' } });
    const manifest = resultOf((await harness.request('thread.capabilities', { threadId: THREAD })).response)['manifest'];
    expect(manifest.appOutput).toEqual({ supported: true });
    expect(manifest.tools[0].appOutput.remoteReadable).toBe(true);
    expect(manifest.tools[1]).toEqual({ agentName: 'agent', toolName: 'ls' });
    const denied = await Harness.started();
    const deniedManifest = resultOf((await denied.request('thread.capabilities', { threadId: THREAD })).response)['manifest'];
    expect(deniedManifest.tools[0].appOutput.remoteReadable).toBe(false);
  });

  it('operation.result.get: denied by default, readable only when granted and remoteReadable', async () => {
    const params = { threadId: THREAD, operationId: OPERATION };
    const byDefault = await Harness.started();
    const denied = await byDefault.request('operation.result.get', params);
    expect(resultOf(denied.response)['result'].output).toEqual({ status: 'denied' });
    expect(JSON.stringify(denied.response)).not.toContain(SENTINEL);

    const granted = await Harness.started({ policies: { appResults: () => true } });
    const readable = resultOf((await granted.request('operation.result.get', params)).response)['result'];
    expect(readable.output).toEqual(expect.objectContaining({ status: 'available', remoteReadable: true, data: expect.any(Object) }));
    expect(Object.keys(readable).sort()).toEqual(['agentName', 'createdAt', 'operationId', 'output', 'threadId', 'toolName']);
    granted.runtime.operationResultHandler = async () => rawOperationResult(false);
    expect(resultOf((await granted.request('operation.result.get', params)).response)['result'].output).toEqual({ status: 'denied' });
    granted.runtime.operationResultHandler = async () => ({ ...rawOperationResult(), output: { status: 'rejected', reason: 'credential_field', field: 'token' } });
    expect(resultOf((await granted.request('operation.result.get', params)).response)['result'].output).toEqual({ status: 'rejected', reason: 'credential_field', field: 'token' });
    granted.runtime.operationResultHandler = async () => null;
    expect(resultOf((await granted.request('operation.result.get', params)).response)).toEqual({ result: null });

    const throwingGrant = await Harness.started({
      policies: {
        appResults: () => {
          throw new Error('grant store down');
        },
      },
    });
    expect(resultOf((await throwingGrant.request('operation.result.get', params)).response)['result'].output).toEqual({ status: 'denied' });
  });

  it('operation.result.get without Runtime 1.5 app results: LocalApprovalDeniedError', async () => {
    const harness = await Harness.started();
    harness.runtime.description = { ...harness.runtime.description, appResults: false };
    expect(errorOf((await harness.request('operation.result.get', { threadId: THREAD, operationId: OPERATION })).response)?.code).toBe('LocalApprovalDeniedError');
    expect(harness.runtime.calls).toEqual([]);
  });

  it('Runtime data nested 100,000 deep fails closed with COMPANION_ERROR, without overflowing the stack', async () => {
    const harness = await Harness.started({ policies: { appResults: () => true } });
    let data: unknown = { token: SENTINEL };
    for (let level = 0; level < 100_000; level += 1) data = [data];
    harness.runtime.operationResultHandler = async () => ({ ...rawOperationResult(), output: { ...rawOperationResult().output, data } }) as never;
    const { response } = await harness.request('operation.result.get', { threadId: THREAD, operationId: OPERATION });
    expect(errorOf(response)?.code).toBe('COMPANION_ERROR');
    expect(JSON.stringify(response)).not.toContain(SENTINEL);
  });

  it('malformed Runtime data fails closed with COMPANION_ERROR', async () => {
    const harness = await Harness.started();
    harness.runtime.readThreadHandler = async () => ({ ...rawSnapshot(), thread: { id: THREAD } }) as never;
    expect(errorOf((await harness.request('thread.open', { threadId: THREAD })).response)?.code).toBe('COMPANION_ERROR');
    harness.runtime.listThreadsHandler = async () => ({ items: [{ id: 'not-a-uuid' }], nextCursor: null }) as never;
    expect(errorOf((await harness.request('thread.list', { limit: 5 })).response)?.code).toBe('COMPANION_ERROR');
    harness.runtime.detachThreadHandler = async () => ({ detached: 'yes' }) as never;
    expect(errorOf((await harness.request('thread.detach', { requestId: RUNTIME_REQUEST, threadId: THREAD })).response)?.code).toBe('COMPANION_ERROR');
    harness.runtime.capabilitiesHandler = async () => [] as never;
    expect(errorOf((await harness.request('thread.capabilities', { threadId: THREAD })).response)?.code).toBe('COMPANION_ERROR');
    expect(harness.diagnostics.filter((entry) => entry.event === 'projection-failed').map((entry) => entry.method)).toEqual([
      'thread.open',
      'thread.list',
      'thread.detach',
      'thread.capabilities',
    ]);
  });
});

describe('outbound size limit (§11)', () => {
  it('a response over the limit fails with COMPANION_ERROR instead, and a replay gets the same', async () => {
    const harness = await Harness.started({ limits: { maxOutboundFrameBytes: 2_000 } });
    harness.runtime.createThreadHandler = async () => ({ ...rawThread(uuid(3)), model: 'm'.repeat(3_000) });
    const requestId = uuid(80);
    const first = await harness.request('thread.create', { requestId: RUNTIME_REQUEST }, { requestId });
    expect(errorOf(first.response)?.code).toBe('COMPANION_ERROR');
    const again = await harness.request('thread.create', { requestId: RUNTIME_REQUEST }, { requestId });
    expect(again.response).toEqual(first.response);
    expect(harness.runtime.calls).toEqual(['createThread']);
  });

  it('the default limit is 1 MiB of UTF-8', async () => {
    const harness = await Harness.started();
    const snapshot = rawSnapshot();
    snapshot.messages.items[0]!.parts = [{ type: 'text', text: 'é'.repeat(530_000) }];
    harness.runtime.readThreadHandler = async () => snapshot;
    expect(errorOf((await harness.request('thread.open', { threadId: THREAD })).response)?.code).toBe('COMPANION_ERROR');
    snapshot.messages.items[0]!.parts = [{ type: 'text', text: 'é'.repeat(500_000) }];
    expect(errorOf((await harness.request('thread.open', { threadId: THREAD })).response)).toBeUndefined();
  });

  it('an event over the limit takes no number and is reported', async () => {
    const harness = await Harness.started({ limits: { maxOutboundFrameBytes: 1_000 } });
    harness.runtime.emit(rawEvent({ type: 'message.completed', streamId: uuid(9), text: 'x'.repeat(2_000) }));
    harness.runtime.emit(rawEvent({ type: 'turn.completed' }));
    await harness.flush();
    expect(harness.sequencesSent()).toEqual([0]);
    expect(harness.diagnostics).toContainEqual({ event: 'event-dropped', code: 'FRAME_TOO_LARGE' });
  });
});

describe('Wire 1.1 sessions get 1.2 data downgraded (§2)', () => {
  it('snapshots, operations, capabilities and tool.completed lose appOutput/operationId', async () => {
    const harness = await Harness.started({ wireVersion: '1.1', policies: { appResults: () => true } });
    const open = resultOf((await harness.request('thread.open', { threadId: THREAD })).response);
    expect(open['operations'].items[0]).not.toHaveProperty('appOutput');
    const operation = resultOf((await harness.request('operation.get', { threadId: THREAD, operationId: OPERATION })).response);
    expect(operation['operation']).not.toHaveProperty('appOutput');
    const manifest = resultOf((await harness.request('thread.capabilities', { threadId: THREAD })).response)['manifest'];
    expect(manifest).not.toHaveProperty('appOutput');
    expect(manifest.tools[0]).not.toHaveProperty('appOutput');
    harness.runtime.emit(
      rawEvent({
        type: 'tool.completed',
        toolCallId: 'c',
        agentName: 'agent',
        toolName: 'deploy',
        operationId: OPERATION,
        display: null,
        appOutput: { status: 'not_provided' },
      }),
    );
    await harness.flush();
    const event = harness.framesOf('runtime.event')[0]!['event'] as { event: Record<string, unknown>; protocolVersion: string };
    expect(event.event).toEqual({ type: 'tool.completed', toolCallId: 'c', agentName: 'agent', toolName: 'deploy' });
    expect(event.protocolVersion).toBe('1.1');
  });
});
