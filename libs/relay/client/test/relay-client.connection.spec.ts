/**
 * The connection loop against a scripted relay on a real WebSocket server: descriptors, session.ready,
 * Control messages, close codes and reconnect backoff (BEHAVIOUR.md §10, §11, §13).
 */
import { reconnectDelayMs } from '../src';
import { collect, nextEvent, outcome, useScriptedRelay } from './client-harness';
import { runtimeEvent, sessionReady, uuid, workspaceStatus, WORKSPACE } from './frames';

const { state, createClient, connected, reconnect } = useScriptedRelay();

describe('RelayClient connection', () => {
  it('connects with a fresh descriptor, expects session.ready first and ACKs −1', async () => {
    const { client, firstAck, connection } = await connected();
    expect(firstAck).toEqual({ type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: -1 });
    expect(connection.url).toMatch(/ticket=t\d+$/);
    expect(client.state).toBe('ready');
    expect(client.wireVersion).toBe('1.2');
    expect(client.workspaceId).toBe(WORKSPACE);
    expect(client.cursor).toBe(-1);
  });

  it('rejects an expired or invalid descriptor with INVALID_SESSION and stops', async () => {
    for (const descriptor of [
      { connectUrl: `ws://127.0.0.1:${state.relay.port}/v1/browser`, expiresAt: '2000-01-01T00:00:00Z' },
      { connectUrl: 'ws://relay.example.com/v1/browser', expiresAt: '2999-01-01T00:00:00Z' },
      { connectUrl: 'WSS://relay.example.com/v1/browser', expiresAt: '2999-01-01T00:00:00Z' },
      { connectUrl: 'wss://relay.example.com/v1/browser', expiresAt: '2999-01-01T00:00:00' },
    ]) {
      const { client } = createClient({ descriptor: async () => descriptor });
      const result = await outcome(client.connect());
      expect(result).toMatchObject({ ok: false, error: { kind: 'transport', code: 'INVALID_SESSION', retryable: false } });
      expect(client.state).toBe('closed');
    }
  });

  it('closes with 4002 when the first frame is not session.ready, then reconnects with a new descriptor', async () => {
    const { client, clock } = createClient();
    const errors = collect(client, 'error');
    client.connect().catch(() => undefined);
    const first = await state.relay.nextConnection();
    const tickets = state.relay.ticketsIssued;
    first.send(workspaceStatus('online'));
    expect(await first.closed).toEqual({ code: 4002 });
    expect(errors[0]).toMatchObject({ code: 'PROTOCOL_ERROR', kind: 'transport' });
    await reconnect(client, clock);
    expect(state.relay.ticketsIssued).toBe(tickets + 1);
  });

  it('treats a repeated session.ready and invalid frames after ready as fatal to the connection (4002)', async () => {
    const { client, clock, connection } = await connected();
    connection.send(sessionReady());
    expect(await connection.closed).toEqual({ code: 4002 });
    const second = await reconnect(client, clock);
    second.send('{not json');
    expect(await second.closed).toEqual({ code: 4002 });
    const third = await reconnect(client, clock);
    third.sendBinary(new Uint8Array([1, 2, 3]));
    expect(await third.closed).toEqual({ code: 4002 });
    const fourth = await reconnect(client, clock);
    fourth.send({ ...runtimeEvent(0, uuid(), { type: 'turn.started' }), workspaceId: uuid() });
    expect(await fourth.closed).toEqual({ code: 4002 });
    const fifth = await reconnect(client, clock);
    fifth.send({ type: 'runtime.request', requestId: uuid(), workspaceId: WORKSPACE, method: 'thread.list', params: { limit: 1 } });
    expect(await fifth.closed).toEqual({ code: 4002 });
  });

  it('treats a frame with a repeated key or nested past the frame depth as invalid (4002), naming the code', async () => {
    const { client, clock, connection } = await connected();
    const errors = collect(client, 'error');
    // The first `event` would be hidden by JSON.parse's last-key-wins and never checked.
    const event = JSON.stringify(runtimeEvent(0, uuid(), { type: 'turn.started' }));
    connection.send(event.replace('"event":{', '"event":{"type":"tool.started","input":"secret"},"event":{'));
    expect(await connection.closed).toEqual({ code: 4002 });
    const second = await reconnect(client, clock);
    second.send(event.replace('{"type":"turn.started"}', `{"type":"turn.started","x":${'['.repeat(9_000)}${']'.repeat(9_000)}}`));
    expect(await second.closed).toEqual({ code: 4002 });
    expect(errors.map((error) => error.issues[0]?.code)).toEqual(['FRAME_DUPLICATE_KEY', 'FRAME_TOO_DEEP']);
  });

  it('refuses a session for another workspace after a reconnect', async () => {
    const { client, clock, connection } = await connected();
    connection.close();
    await nextEvent(client, 'state', (change) => change.state === 'waiting');
    clock.advance(30_000);
    const next = await state.relay.nextConnection();
    next.send(sessionReady({ workspaceId: uuid() }));
    expect(await next.closed).toEqual({ code: 4002 });
  });

  it('closes 4012 and reconnects on a retryable session.error', async () => {
    const { client, clock, connection } = await connected();
    const errors = collect(client, 'error');
    connection.send({ type: 'session.error', code: 'RATE_LIMITED', retryable: true });
    expect(await connection.closed).toEqual({ code: 4012 });
    expect(errors[0]).toMatchObject({ kind: 'session', code: 'RATE_LIMITED', retryable: true });
    await reconnect(client, clock);
    expect(client.state).toBe('ready');
  });

  it('closes 4008 for good on a non-retryable session.error', async () => {
    const { client, connection } = await connected();
    connection.send({ type: 'session.error', code: 'CONTROLLER_CONFLICT', retryable: false });
    expect(await connection.closed).toEqual({ code: 4008 });
    expect(client.state).toBe('closed');
    expect(await outcome(client.threads.list())).toMatchObject({ ok: false, error: { code: 'CLIENT_CLOSED' } });
    expect(await outcome(client.connect())).toMatchObject({ ok: false, error: { kind: 'session', code: 'CONTROLLER_CONFLICT' } });
  });

  it('bounds a connect attempt: no session.ready within the timeout closes with 1000 and retries', async () => {
    const { client, clock } = createClient();
    const errors = collect(client, 'error');
    client.connect().catch(() => undefined);
    const silent = await state.relay.nextConnection();
    await silent.clientOpen();
    clock.advance(30_000);
    expect(await silent.closed).toEqual({ code: 1000 });
    expect(errors[0]).toMatchObject({ code: 'REQUEST_TIMEOUT', retryable: true });
    expect(client.state).toBe('waiting');
  });

  it('backs off min(30000, 250·2^min(attempt−1, 7)) ms between failed attempts and resets on session.ready', async () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map(reconnectDelayMs)).toEqual([250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    let failures = 3;
    const { client, clock } = createClient({
      descriptor: async () => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('backend unavailable');
        }
        return state.relay.descriptor();
      },
    });
    const connecting = client.connect();
    const waits: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await nextEvent(client, 'state', (change) => change.state === 'waiting');
      const delay = clock.scheduled().at(-1) ?? -1;
      waits.push(delay);
      clock.advance(delay);
    }
    expect(waits).toEqual([250, 500, 1000]);
    const connection = await state.relay.nextConnection();
    connection.send(sessionReady());
    await connecting;
    connection.close();
    await nextEvent(client, 'state', (change) => change.state === 'waiting');
    expect(clock.scheduled().at(-1)).toBe(250);
  });

  it('a close before session.ready (a refused ticket) is a retryable TRANSPORT_ERROR', async () => {
    const { client } = createClient();
    const errors = collect(client, 'error');
    client.connect().catch(() => undefined);
    const refused = await state.relay.nextConnection();
    refused.close(1008);
    await nextEvent(client, 'state', (change) => change.state === 'waiting');
    expect(errors[0]).toMatchObject({ code: 'TRANSPORT_ERROR', retryable: true });
  });

  it('tracks workspace.status and fails new requests locally while offline', async () => {
    const { client, connection } = await connected({}, { workspaceStatus: 'offline' });
    expect(client.workspaceStatus).toBe('offline');
    expect(await outcome(client.threads.list())).toMatchObject({ ok: false, error: { code: 'WORKSPACE_OFFLINE', retryable: true } });
    connection.send(workspaceStatus('online'));
    await nextEvent(client, 'workspace');
    const listing = client.threads.list();
    const request = await connection.nextRequest('thread.list');
    connection.send({ type: 'runtime.response', requestId: request.requestId, workspaceId: WORKSPACE, result: { items: [], nextCursor: null } });
    expect(await listing).toEqual({ items: [], nextCursor: null });
  });
});
