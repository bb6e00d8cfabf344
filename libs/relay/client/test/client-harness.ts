/**
 * Shared set-up for the client tests: one scripted relay per test file, clients on a manual clock, and a
 * way to wait for the client's next event without polling or sleeping.
 */
import { RelayClient, type RelayClientEvents, type RelayClientOptions } from '../src';
import { sessionReady } from './frames';
import { ManualClock } from './manual-clock';
import { NodeWebSocket, ScriptedRelay, type RelayConnection } from './scripted-relay';

export function nextEvent<K extends keyof RelayClientEvents>(
  client: RelayClient,
  event: K,
  where: (payload: RelayClientEvents[K]) => boolean = () => true,
): Promise<RelayClientEvents[K]> {
  return new Promise((resolve) => {
    const off = client.on(event, (payload) => {
      if (!where(payload)) return;
      off();
      resolve(payload);
    });
  });
}

export function collect<K extends keyof RelayClientEvents>(client: RelayClient, event: K): Array<RelayClientEvents[K]> {
  const seen: Array<RelayClientEvents[K]> = [];
  client.on(event, (payload) => seen.push(payload));
  return seen;
}

/** Settles a promise into a value or its error, for assertions on rejections. */
export async function outcome<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: { kind?: string; code?: string; retryable?: boolean } }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error: error as { kind?: string; code?: string; retryable?: boolean } };
  }
}

export function useScriptedRelay() {
  const state: { relay: ScriptedRelay; clients: RelayClient[] } = { relay: undefined as unknown as ScriptedRelay, clients: [] };
  beforeAll(async () => {
    state.relay = await ScriptedRelay.start();
  });
  afterEach(() => {
    for (const client of state.clients.splice(0)) client.close();
    state.relay.forgetPending();
  });
  afterAll(async () => {
    await state.relay.stop();
  });

  function createClient(options: Partial<RelayClientOptions> = {}) {
    const clock = new ManualClock();
    const client = new RelayClient({ descriptor: state.relay.descriptor, WebSocket: NodeWebSocket, allowInsecureLoopback: true, clock, ...options });
    state.clients.push(client);
    return { client, clock };
  }

  /** A client through its first `session.ready`, with the relay's side of the connection and the first ACK. */
  async function connected(options: Partial<RelayClientOptions> = {}, ready: Parameters<typeof sessionReady>[0] = {}) {
    const { client, clock } = createClient(options);
    const connecting = client.connect();
    const connection = await state.relay.nextConnection();
    connection.send(sessionReady(ready));
    await connecting;
    const firstAck = await connection.nextAck();
    return { client, clock, connection, firstAck };
  }

  /** After the client lost its connection: let the backoff fire and hand the new connection to the test. */
  async function reconnect(client: RelayClient, clock: ManualClock, ready: Parameters<typeof sessionReady>[0] = {}): Promise<RelayConnection> {
    if (client.state !== 'waiting') await nextEvent(client, 'state', (change) => change.state === 'waiting');
    // The reconnect timer is the latest one scheduled; request timeouts are left alone.
    clock.advance(clock.scheduled().at(-1) ?? 0);
    const connection = await state.relay.nextConnection();
    connection.send(sessionReady(ready));
    await nextEvent(client, 'ready');
    return connection;
  }

  return { state, createClient, connected, reconnect };
}
