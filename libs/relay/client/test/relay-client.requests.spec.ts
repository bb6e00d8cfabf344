/**
 * Requests against a scripted relay on a real WebSocket server: the typed API, result checking, and the
 * idempotency duties of §5 (verbatim re-send, OUTCOME_UNKNOWN, TRANSPORT_ERROR, REQUEST_TIMEOUT, ABORTED).
 */
import { collect, nextEvent, outcome, useScriptedRelay } from './client-harness';
import { snapshotResult, threadSummary, uuid, workspaceStatus, WORKSPACE } from './frames';

const { connected, createClient, reconnect, state } = useScriptedRelay();

const respond = (requestId: string, body: { result?: unknown; error?: unknown }) => ({ type: 'runtime.response', requestId, workspaceId: WORKSPACE, ...body });

describe('RelayClient requests', () => {
  it('sends typed requests with fresh ids and returns schema-checked results', async () => {
    const { client, connection } = await connected();
    const threadId = uuid();
    const creating = client.threads.create({ title: 'Plan' });
    const create = await connection.nextRequest('thread.create');
    expect(create).toMatchObject({ type: 'runtime.request', workspaceId: WORKSPACE, method: 'thread.create', params: { title: 'Plan' } });
    expect(create.params['requestId']).not.toBe(create.requestId);
    connection.send(respond(create.requestId, { result: { thread: threadSummary(threadId) } }));
    expect(await creating).toEqual({ thread: threadSummary(threadId) });

    const starting = client.turns.start({ threadId, text: 'hello' });
    const start = await connection.nextRequest('turn.start');
    expect(start.params).toMatchObject({ threadId, input: { text: 'hello' } });
    connection.send(respond(start.requestId, { result: { accepted: true, turnId: start.params['turnId'] } }));
    expect(await starting).toEqual({ accepted: true, turnId: start.params['turnId'] });

    const paging = client.threads.snapshot({ threadId, messageBeforeSequence: 10 });
    const snapshot = await connection.nextRequest('thread.snapshot');
    expect(snapshot.params).toEqual({ threadId, messageBeforeSequence: 10, limit: 100 });
    connection.send(respond(snapshot.requestId, { result: snapshotResult(threadId) }));
    expect(await paging).toEqual(snapshotResult(threadId));
  });

  it('applies result xor error: neither → PROTOCOL_ERROR, both → error wins, bad result → PROTOCOL_ERROR', async () => {
    const { client, connection } = await connected();
    const a = client.threads.list();
    const b = client.threads.list();
    const c = client.threads.list();
    const [ra, rb, rc] = [await connection.nextRequest(), await connection.nextRequest(), await connection.nextRequest()];
    connection.send(respond(uuid(), { result: { items: [], nextCursor: null } })); // unknown requestId: ignored
    connection.send(respond(ra.requestId, {}));
    connection.send(respond(rb.requestId, { result: { items: [], nextCursor: null }, error: { code: 'COMPANION_ERROR', message: 'x', retryable: false } }));
    connection.send(respond(rc.requestId, { result: { items: 'nope' } }));
    expect(await outcome(a)).toMatchObject({ ok: false, error: { kind: 'transport', code: 'PROTOCOL_ERROR', retryable: false } });
    expect(await outcome(b)).toMatchObject({ ok: false, error: { kind: 'remote', code: 'COMPANION_ERROR', retryable: false } });
    expect(await outcome(c)).toMatchObject({ ok: false, error: { code: 'PROTOCOL_ERROR' } });
    expect(client.state).toBe('ready');
  });

  it('passes Runtime retryability through for remote errors', async () => {
    const { client, connection } = await connected();
    const listing = client.threads.list();
    const request = await connection.nextRequest();
    connection.send(respond(request.requestId, { error: { code: 'JSON_RPC_-32000', message: 'The runtime reported an error.', retryable: true } }));
    expect(await outcome(listing)).toMatchObject({ ok: false, error: { kind: 'remote', code: 'JSON_RPC_-32000', retryable: true } });
  });

  it('refuses operation.result.get on a 1.1 session locally, and invalid params before sending', async () => {
    const { client } = await connected({}, { relayProtocolVersion: '1.1' });
    expect(client.wireVersion).toBe('1.1');
    expect(await outcome(client.operations.result({ threadId: uuid(), operationId: uuid() }))).toMatchObject({ ok: false, error: { code: 'PROTOCOL_ERROR' } });
    expect(await outcome(client.threads.rename(uuid(), ''))).toMatchObject({ ok: false, error: { kind: 'usage', code: 'INVALID_REQUEST' } });
    const only11 = createClient({ acceptedWireVersions: ['1.1'] }).client;
    void only11.connect().catch(() => undefined);
    expect(await outcome(only11.operations.result({ threadId: uuid(), operationId: uuid() }))).toMatchObject({ ok: false, error: { code: 'PROTOCOL_ERROR' } });
    await state.relay.nextConnection();
  });

  it('re-sends pending mutations verbatim after every online session.ready and workspace.status online; lost queries fail TRANSPORT_ERROR', async () => {
    const { client, clock, connection } = await connected();
    const threadId = uuid();
    const renaming = client.threads.rename(threadId, 'New title');
    const listing = client.threads.list();
    const original = await connection.nextText();
    await connection.nextRequest('thread.list');
    connection.close();
    expect(await outcome(listing)).toMatchObject({ ok: false, error: { code: 'TRANSPORT_ERROR', retryable: true } });

    const second = await reconnect(client, clock);
    expect(await second.nextOf('runtime.request').then(JSON.stringify)).toBe(JSON.stringify(JSON.parse(original)));
    // The bytes are identical, not just equal after parsing.
    second.send(workspaceStatus('online'));
    const again = await second.nextText();
    expect(again).toBe(original);
    const { requestId } = JSON.parse(original) as { requestId: string };
    second.send(respond(requestId, { result: { thread: threadSummary(threadId, 'New title') } }));
    expect(await renaming).toEqual({ thread: threadSummary(threadId, 'New title') });
    second.send(respond(requestId, { result: { thread: threadSummary(threadId, 'New title') } })); // the replayed answer: ignored
  });

  it('holds mutations while the workspace is offline and sends them when it comes online', async () => {
    const { client, clock, connection } = await connected();
    const cancelling = client.turns.cancel({ threadId: uuid(), turnId: uuid() });
    const first = await connection.nextText();
    connection.close();
    const second = await reconnect(client, clock, { workspaceStatus: 'offline' });
    second.send(workspaceStatus('online'));
    expect(await second.nextOf('runtime.request').then(JSON.stringify)).toBe(JSON.stringify(JSON.parse(first)));
    second.send(respond((JSON.parse(first) as { requestId: string }).requestId, { result: { cancelling: true } }));
    expect(await cancelling).toEqual({ cancelling: true });
  });

  it('settles a sent mutation that times out as OUTCOME_UNKNOWN and a sent query as REQUEST_TIMEOUT', async () => {
    const { client, clock, connection } = await connected();
    const deleting = client.threads.delete(uuid());
    const listing = client.threads.list();
    await connection.nextRequest('thread.delete');
    await connection.nextRequest('thread.list');
    clock.advance(30_000);
    expect(await outcome(deleting)).toMatchObject({ ok: false, error: { code: 'OUTCOME_UNKNOWN', retryable: false } });
    expect(await outcome(listing)).toMatchObject({ ok: false, error: { code: 'REQUEST_TIMEOUT', retryable: true } });
  });

  it('settles unsent requests as REQUEST_TIMEOUT or ABORTED, and a sent aborted mutation as OUTCOME_UNKNOWN', async () => {
    const { client, clock, connection } = await connected();
    const abortSent = new AbortController();
    const detaching = client.threads.detach(uuid(), { signal: abortSent.signal });
    await connection.nextRequest('thread.detach');
    abortSent.abort();
    expect(await outcome(detaching)).toMatchObject({ ok: false, error: { code: 'OUTCOME_UNKNOWN' } });

    connection.close();
    await nextEvent(client, 'state', (change) => change.state === 'waiting');
    const abortUnsent = new AbortController();
    const creating = client.threads.create({}, { signal: abortUnsent.signal });
    const waiting = client.threads.create({}, { timeoutMs: 5_000 });
    abortUnsent.abort();
    expect(await outcome(creating)).toMatchObject({ ok: false, error: { code: 'ABORTED', retryable: false } });
    clock.advance(5_000);
    expect(await outcome(waiting)).toMatchObject({ ok: false, error: { code: 'REQUEST_TIMEOUT', retryable: true } });
    const aborted = new AbortController();
    aborted.abort();
    expect(await outcome(client.threads.list({}, { signal: aborted.signal }))).toMatchObject({ ok: false, error: { code: 'ABORTED' } });
  });

  it('on a fatal session.error, sent mutations settle OUTCOME_UNKNOWN and the rest CLIENT_CLOSED', async () => {
    const { client, connection } = await connected();
    const sent = client.threads.delete(uuid());
    await connection.nextRequest('thread.delete');
    connection.send(workspaceStatus('offline'));
    await nextEvent(client, 'workspace');
    const errors = collect(client, 'error');
    connection.send({ type: 'session.error', code: 'WORKSPACE_NOT_FOUND', retryable: false });
    expect(await outcome(sent)).toMatchObject({ ok: false, error: { code: 'OUTCOME_UNKNOWN' } });
    expect(await connection.closed).toEqual({ code: 4008 });
    expect(errors).toEqual([expect.objectContaining({ kind: 'session', code: 'WORKSPACE_NOT_FOUND' })]);
  });

  it('close() settles sent mutations OUTCOME_UNKNOWN and queued requests CLIENT_CLOSED, then refuses new ones', async () => {
    const { client, connection } = await connected();
    const sent = outcome(client.turns.cancel({ threadId: uuid(), turnId: uuid() }));
    await connection.nextRequest('turn.cancel');
    const listing = outcome(client.threads.list());
    await connection.nextRequest('thread.list');
    client.close();
    expect(await connection.closed).toEqual({ code: 1000 });
    expect(await sent).toMatchObject({ ok: false, error: { code: 'OUTCOME_UNKNOWN' } });
    expect(await listing).toMatchObject({ ok: false, error: { code: 'CLIENT_CLOSED' } });
    expect(await outcome(client.threads.list())).toMatchObject({ ok: false, error: { code: 'CLIENT_CLOSED' } });
  });

  it('without connect(), requests fail with CONNECTION_UNAVAILABLE', async () => {
    const { client } = createClient();
    expect(await outcome(client.threads.list())).toMatchObject({ ok: false, error: { code: 'CONNECTION_UNAVAILABLE', retryable: true } });
  });
});
