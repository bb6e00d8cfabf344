// End to end through the real relay gateway (one child process for the file, on embedded defaults, with a
// small frames retention) with real simulated Companions (the Companion core over the simulated runtime,
// enrolled with real pairing codes) and real browser clients (`RelayClient` of @trustmesh/relay-client over
// `ws`). Each test looks at what a person using the browser would notice: approvals and forms offered and
// answered, turns that finish, a restarted Companion that keeps serving, a long absence healed through a gap,
// requests that settle once; and at what the relay kept (its audit and its database) once it has stopped.
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';

import { SecretText } from '@trustmesh/platform-config';
import { openDatabase } from '@trustmesh/platform-database';
import { waitUntil } from '@trustmesh/platform-testing';
import type { CompanionLimits, ServerRequestResolution } from '@trustmesh/relay-companion';
import { createScenarioRuntime, createSimulatedRuntime, parseScenario, type Scenario, type SimulatedRuntime, type TurnScript } from '@trustmesh/relay-companion-sim';
import { RelayClient, RelayClientError, systemClock, type Clock, type RelayClientOptions, type WebSocketLike } from '@trustmesh/relay-client';
import { createWorkspaceCipher, exportPublicKey, generateRelayKeyPair, type WorkspaceCipher } from '@trustmesh/relay-encryption';
import WebSocket from 'ws';

import { redeemPairingCode } from '../src/enrollment/enrollment.client';
import { RelayControlProvisioner } from '../src/load/relay-control.provisioner';
import { CompanionSimulator } from '../src/simulator/companion-simulator';
import { createCompanionCore, DEFAULT_BEHAVIOUR } from '../src/simulator/companion.factory';
import { startGatewayProcess, type GatewayProcess } from './gateway.process';

jest.setTimeout(120_000);

const ORIGIN = 'https://app.trustmesh.test';
const SENTINEL = 'relay-security-sentinel';
/** The relay's catch-up ring per workspace: small, so a browser away for one turn falls behind it. */
const RETENTION_FRAMES = 6;

type Frame = Record<string, unknown>;

/** A `ws` socket the test can watch and interfere with: every text in and out, swallowed frames, a hard drop. */
class TappedSocket implements WebSocketLike {
  onopen: WebSocketLike['onopen'] = null;
  onmessage: WebSocketLike['onmessage'] = null;
  onclose: WebSocketLike['onclose'] = null;
  onerror: WebSocketLike['onerror'] = null;

  constructor(
    private readonly socket: WebSocket,
    private readonly tap: Tap,
  ) {
    socket.on('open', () => this.onopen?.({}));
    socket.on('message', (data: WebSocket.RawData) => {
      const text = String(data);
      tap.received.push(text);
      if (tap.intercept?.(text, this) === 'swallow') return;
      this.onmessage?.({ data: text });
    });
    socket.on('close', (code: number) => this.onclose?.({ code }));
    socket.on('error', () => this.onerror?.({}));
  }

  get readyState(): number {
    return this.socket.readyState;
  }

  send(data: string): void {
    this.tap.sent.push(data);
    this.socket.send(data);
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  /** As a network failure: no closing handshake. */
  drop(): void {
    this.socket.terminate();
  }
}

interface Tap {
  received: string[];
  sent: string[];
  sockets: TappedSocket[];
  intercept?: (text: string, socket: TappedSocket) => 'swallow' | undefined;
}

const parse = (texts: readonly string[]): Frame[] => texts.map((text) => JSON.parse(text) as Frame);
const requestsSent = (tap: Tap, method: string): Frame[] => parse(tap.sent).filter((frame) => frame.type === 'runtime.request' && frame.method === method);

/** Resolves with the first payload of `event` that `accept` takes. */
function nextEvent<K extends Parameters<RelayClient['on']>[0], P = Parameters<Parameters<RelayClient['on']>[1]>[0]>(client: RelayClient, event: K, accept: (payload: never) => boolean = () => true): Promise<P> {
  return new Promise<P>((resolve) => {
    const off = client.on(event, ((payload: never) => {
      if (!accept(payload)) return;
      off();
      resolve(payload as P);
    }) as never);
  });
}

describe('browsers and simulated Companions through the real relay gateway', () => {
  let gateway: GatewayProcess;
  let provisioner: RelayControlProvisioner;
  let ca: Buffer;
  const simulators: CompanionSimulator[] = [];
  const clients: RelayClient[] = [];
  /** Facts the last test checks in the relay's database once the gateway has stopped. */
  const audited: { interactionId?: string; workspaceId?: string; sealed?: string[] } = {};

  beforeAll(async () => {
    gateway = await startGatewayProcess({ RELAY_FRAMES_RETENTION_FRAMES: String(RETENTION_FRAMES) });
    ca = readFileSync(gateway.certFile);
    provisioner = new RelayControlProvisioner({ address: gateway.grpcAddress, credential: new SecretText(gateway.serviceCredential), tls: null });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(simulators.map((simulator) => simulator.stop()));
    provisioner?.close();
    if (gateway) {
      await gateway.stop({ keepDataDir: true });
      rmSync(gateway.dataDir, { recursive: true, force: true });
    }
  });

  interface CompanionUnderTest {
    workspaceId: string;
    simulator: CompanionSimulator;
    /** What the runtime(s) behind the Companion were told by the core, across restarts. */
    resolutions: ServerRequestResolution[];
    /** Mutations that reached the runtime(s), by port method. */
    mutations: { startTurn: number; renameThread: number };
  }

  async function startCompanion(
    options: { scenario?: Scenario; turnScript?: (input: string) => TurnScript; limits?: Partial<CompanionLimits>; workspaceId?: string; cipher?: WorkspaceCipher } = {},
  ): Promise<CompanionUnderTest> {
    const workspaceId = options.workspaceId ?? (await provisioner.createWorkspace(`relay e2e ${randomUUID().slice(0, 8)}`));
    const enrollment = await redeemPairingCode(await provisioner.createPairingCode(workspaceId), { redeemUrl: `${gateway.httpUrl}/v1/device-enrollments/redeem`, tls: { ca, insecureDev: false } });
    expect(enrollment.workspaceId).toBe(workspaceId);
    const resolutions: ServerRequestResolution[] = [];
    const mutations = { startTurn: 0, renameThread: 0 };
    const observe = (runtime: SimulatedRuntime): SimulatedRuntime => {
      const resolve = runtime.resolveServerRequest.bind(runtime);
      runtime.resolveServerRequest = (id, resolution) => {
        resolutions.push(resolution);
        return resolve(id, resolution);
      };
      const startTurn = runtime.startTurn.bind(runtime);
      runtime.startTurn = (params) => {
        mutations.startTurn += 1;
        return startTurn(params);
      };
      const renameThread = runtime.renameThread.bind(runtime);
      runtime.renameThread = (params) => {
        mutations.renameThread += 1;
        return renameThread(params);
      };
      return runtime;
    };
    const simulator = new CompanionSimulator({
      identity: { deviceId: enrollment.deviceId, workspaceId, deviceCredential: enrollment.deviceCredential },
      companionUrl: `${gateway.httpUrl.replace(/^https:/, 'wss:')}/v1/companion`,
      tls: { ca, insecureDev: false },
      wireVersion: '1.2',
      createRuntime: (scenario) =>
        observe(
          scenario
            ? createScenarioRuntime(scenario, { sentinel: SENTINEL })
            : createSimulatedRuntime({ sentinel: SENTINEL, ...(options.turnScript ? { turnScripts: (request) => options.turnScript!(request.input) } : {}) }),
        ),
      createCore: (runtime) =>
        createCompanionCore(runtime, {
          workspaceId,
          wireVersion: '1.2',
          behaviour: { ...DEFAULT_BEHAVIOUR, approvalPolicy: 'allow', sentinel: SENTINEL },
          ...(options.limits ? { limits: options.limits } : {}),
          ...(options.cipher ? { cipher: options.cipher } : {}),
        }),
      delayFor: () => 20,
    });
    simulators.push(simulator);
    await simulator.start(options.scenario);
    await waitUntil(() => simulator.stats().state === 'connected', { timeoutMs: 30_000, what: 'the Companion to connect' });
    return { workspaceId, simulator, resolutions, mutations };
  }

  /** A browser client over tapped `ws` sockets; `gate`, when set, holds each new connection attempt until opened. */
  async function connectBrowser(
    workspaceId: string,
    options: { cipher?: WorkspaceCipher; gate?: () => Promise<void>; clientOptions?: Partial<RelayClientOptions> } = {},
  ): Promise<{ client: RelayClient; tap: Tap }> {
    const tap: Tap = { received: [], sent: [], sockets: [] };
    const client = new RelayClient({
      descriptor: async () => {
        await options.gate?.();
        return provisioner.createBrowserSession(workspaceId, ORIGIN, ['1.2', '1.1']);
      },
      createSocket: (url) => {
        const socket = new TappedSocket(new WebSocket(url, { origin: ORIGIN, ca }), tap);
        tap.sockets.push(socket);
        return socket;
      },
      ...(options.cipher ? { cipher: options.cipher } : {}),
      ...options.clientOptions,
    });
    clients.push(client);
    await client.connect();
    await waitUntil(() => client.workspaceStatus === 'online', { timeoutMs: 30_000, what: 'the workspace to be online' });
    return { client, tap };
  }

  const turnEnded = (client: RelayClient, threadId: string) => nextEvent<'turn', { state: string; threadId: string }>(client, 'turn', (update: { threadId: string; state: string }) => update.threadId === threadId && update.state !== 'started');

  it('runs a full turn whose approval is answered from the browser', async () => {
    const { workspaceId, resolutions } = await startCompanion({
      turnScript: () => ({
        steps: [
          { kind: 'message', text: 'I will run the tests.', chunkDelayMs: 1 },
          {
            kind: 'tool',
            agent: 'assistant',
            tool: 'shell',
            input: { command: 'npm test', token: `tok-${SENTINEL}` },
            output: { stdout: 'all green\n' },
            durationMs: 5,
            approval: { explanation: 'Run the test suite', preview: { command: 'npm test' }, reason: 'shell commands need approval' },
          },
          { kind: 'message', text: 'The tests pass.', chunkDelayMs: 1 },
        ],
      }),
    });
    const { client, tap } = await connectBrowser(workspaceId);
    const { thread } = await client.threads.create({ title: 'Approvals' });
    await client.threads.open(thread.id);

    const said: string[] = [];
    client.on('message', (message) => (message.completed && message.threadId === thread.id ? said.push(message.text) : undefined));
    const transcript = nextEvent<'snapshot', { snapshot: { messages: { items: Array<{ role: string; text?: string }> } } }>(client, 'snapshot', (event: { reason: string }) => event.reason === 'turn-ended');
    const offered = nextEvent<'interaction', { change: string; interaction: { interactionId: string; method: string; request: Frame } }>(client, 'interaction', (change: { change: string }) => change.change === 'pending');
    const toolDone = nextEvent<'tool', { status: string; outcome?: { kind: string }; toolName: string }>(client, 'tool', (tool: { status: string }) => tool.status === 'completed');
    const ended = turnEnded(client, thread.id);
    await client.turns.start({ threadId: thread.id, text: 'run the tests' });

    const pending = await offered;
    expect(pending.interaction.method).toBe('approval.request');
    expect(pending.interaction.request).toMatchObject({ type: 'interaction.request', method: 'approval.request', projection: { agentName: 'assistant', toolName: 'shell', explanation: 'Run the test suite' } });
    expect(client.pendingInteractions().map((item) => item.interactionId)).toEqual([pending.interaction.interactionId]);

    const resolved = nextEvent<'interaction', { change: string; interaction: { interactionId: string } }>(client, 'interaction', (change: { change: string }) => change.change === 'resolved');
    const answer = await client.interactions.approve(pending.interaction.interactionId);
    expect(answer).toMatchObject({ accepted: true });
    expect((await resolved).interaction.interactionId).toBe(pending.interaction.interactionId);
    expect(await toolDone).toMatchObject({ toolName: 'shell', outcome: { kind: 'success' } });
    expect((await ended).state).toBe('completed');
    expect(client.pendingInteractions()).toEqual([]);
    expect(resolutions).toEqual([{ method: 'approval.request', decision: 'approve' }]);
    expect(said).toEqual(['I will run the tests.', 'The tests pass.']);
    // The thread, refreshed when the turn ended, holds the conversation.
    expect(JSON.stringify((await transcript).snapshot)).toContain('The tests pass.');
    // The raw tool input and approval reason stayed at the Companion.
    expect(tap.received.join('\n')).not.toContain(SENTINEL);
    expect(tap.received.join('\n')).not.toContain('shell commands need approval');
    audited.interactionId = pending.interaction.interactionId;
    audited.workspaceId = workspaceId;
  });

  it('normalises a user-input form: values in form order reach the runtime, unknown options are refused', async () => {
    const form = {
      title: 'Deploy where?',
      controls: [
        { type: 'choice' as const, id: 'region', label: 'Region', required: true, multiple: false, options: [{ id: 'eu', label: 'Europe' }, { id: 'us', label: 'Americas' }] },
        { type: 'number' as const, id: 'replicas', label: 'Replicas', required: true, integer: true, min: 1, max: 9 },
        { type: 'text' as const, id: 'note', label: 'Note', required: false, maxLength: 200 },
      ],
    };
    const { workspaceId, resolutions } = await startCompanion({
      turnScript: () => ({ steps: [{ kind: 'userInput', form, reason: `raw ${SENTINEL}` }, { kind: 'message', text: 'Deploying.', chunkDelayMs: 1 }] }),
    });
    const { client, tap } = await connectBrowser(workspaceId);
    const { thread } = await client.threads.create({ title: 'Forms' });
    const offered = nextEvent<'interaction', { interaction: { interactionId: string; threadId: string; turnId: string; request: Frame } }>(client, 'interaction', (change: { change: string }) => change.change === 'pending');
    const ended = turnEnded(client, thread.id);
    await client.turns.start({ threadId: thread.id, text: 'deploy' });
    const { interaction } = await offered;
    expect(interaction.request).toMatchObject({ method: 'userInput.request', projection: { title: 'Deploy where?', controls: form.controls } });

    // The client's candidate builder refuses an option the form does not have, and sends nothing.
    const local = await client.interactions.submit(interaction.interactionId, { region: 'north', replicas: 2 }).catch((error: unknown) => error);
    expect(local).toBeInstanceOf(RelayClientError);
    expect(local).toMatchObject({ kind: 'usage', code: 'INVALID_REQUEST' });
    expect(requestsSent(tap, 'interaction.candidate')).toEqual([]);
    expect(client.pendingInteractions().map((item) => item.interactionId)).toEqual([interaction.interactionId]);

    // Sent raw, past the builder, the Companion refuses it and the form stays open.
    const raw = await client
      .request('interaction.candidate', {
        interactionId: interaction.interactionId,
        threadId: interaction.threadId,
        turnId: interaction.turnId,
        method: 'userInput.request',
        candidate: { status: 'submitted', values: [{ id: 'region', value: 'north' }, { id: 'replicas', value: 2 }] },
      })
      .catch((error: unknown) => error);
    expect(raw).toMatchObject({ kind: 'remote', code: 'COMPANION_ERROR' });
    expect(requestsSent(tap, 'interaction.candidate')).toHaveLength(1);
    expect(resolutions).toEqual([]);

    // Submitted in another order than the form's, the answer reaches the runtime in form order.
    const resolved = nextEvent<'interaction', { interaction: { interactionId: string } }>(client, 'interaction', (change: { change: string }) => change.change === 'resolved');
    await expect(client.interactions.submit(interaction.interactionId, [{ id: 'note', value: 'canary first' }, { id: 'replicas', value: 3 }, { id: 'region', value: 'eu' }])).resolves.toMatchObject({ accepted: true });
    expect((await resolved).interaction.interactionId).toBe(interaction.interactionId);
    expect((await ended).state).toBe('completed');
    expect(resolutions).toEqual([
      { method: 'userInput.request', response: { status: 'submitted', values: [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 3 }, { id: 'note', value: 'canary first' }] } },
    ]);
    expect(tap.received.join('\n')).not.toContain(SENTINEL);
  });
  it('keeps working through a Companion restart mid-turn; a new session gets the pending approval redelivered', async () => {
    const threadId = randomUUID();
    const scenario = parseScenario(
      JSON.stringify({
        version: 1,
        name: 'restart-mid-turn',
        threads: [{ key: 'main', id: threadId, title: 'Restarted' }],
        steps: [
          {
            kind: 'awaitTurn',
            thread: 'main',
            timeoutMs: 60_000,
            steps: [
              { kind: 'message', text: 'Clearing the cache.', chunkDelayMs: 1 },
              { kind: 'tool', agent: 'assistant', tool: 'shell', input: { command: 'rm -rf .cache' }, durationMs: 5, approval: { explanation: 'Delete the cache', expiresInMs: 600_000 } },
              { kind: 'message', text: 'Never said: the Companion restarts first.', chunkDelayMs: 1 },
            ],
          },
          { kind: 'awaitTurn', thread: 'main', timeoutMs: 60_000, steps: [{ kind: 'message', text: 'Back after the restart.', chunkDelayMs: 1 }] },
        ],
      }),
      { format: 'json' },
    );
    const { workspaceId, simulator } = await startCompanion({ scenario });
    const { client } = await connectBrowser(workspaceId);
    await client.threads.open(threadId);
    const offered = nextEvent<'interaction', { interaction: { interactionId: string } }>(client, 'interaction', (change: { change: string }) => change.change === 'pending');
    await client.turns.start({ threadId, text: 'clear the cache' });
    const { interaction } = await offered;
    const cursorBefore = client.cursor;
    expect(cursorBefore).toBeGreaterThan(0);

    // A second tab opened now is offered the same approval: the relay kept it and redelivers it.
    const { client: second } = await connectBrowser(workspaceId);
    await waitUntil(() => second.pendingInteractions().some((item) => item.interactionId === interaction.interactionId), { timeoutMs: 30_000, what: 'the approval redelivered to the new session' });
    expect(second.pendingInteractions()[0]).toMatchObject({ interactionId: interaction.interactionId, threadId, method: 'approval.request' });

    // The Companion restarts while the turn waits for the approval.
    const statuses: string[] = [];
    client.on('workspace', ({ status }) => statuses.push(status));
    const reset = nextEvent<'reset', { epoch: number }>(client, 'reset');
    const refreshed = nextEvent<'snapshot', { threadId: string; reason: string }>(client, 'snapshot', (event: { reason: string; threadId: string }) => event.threadId === threadId && event.reason === 'reset');
    expect(await simulator.restart()).toBe(1);
    await waitUntil(() => statuses.includes('offline') && client.workspaceStatus === 'online' && simulator.stats().state === 'connected', { timeoutMs: 30_000, what: 'the workspace to go offline and come back' });

    // A tab opened now, before the restarted Companion has said anything, must not be handed the dead stream.
    const acksBefore = simulator.stats().acksReceived;
    const { client: joiner } = await connectBrowser(workspaceId);
    await waitUntil(() => simulator.stats().acksReceived > acksBefore, { what: 'the new tab\'s first ACK to reach the Companion' });
    await joiner.threads.open(threadId);

    // A new turn on the same thread streams normally on the new stream (which starts again at 0).
    const said: string[] = [];
    client.on('message', (message) => (message.completed ? said.push(message.text) : undefined));
    const ended = turnEnded(client, threadId);
    const joinerSaid: string[] = [];
    joiner.on('message', (message) => (message.completed ? joinerSaid.push(message.text) : undefined));
    const joinerTurns: string[] = [];
    joiner.on('turn', (update) => (update.threadId === threadId ? joinerTurns.push(update.state) : undefined));
    await client.turns.start({ threadId, text: 'status?' });
    expect((await ended).state).toBe('completed');
    expect(await reset).toEqual({ epoch: 1 });
    expect(await refreshed).toMatchObject({ threadId, reason: 'reset' });
    expect(said).toEqual(['Back after the restart.']);
    expect(client.epoch).toBe(1);
    expect(client.cursor).toBe(simulator.stats().lastRelaySequence);
    expect(client.state).toBe('ready');

    // The new tab follows the same turn live, and is not offered the approval that died with the old Companion.
    await waitUntil(() => joinerTurns.includes('completed'), { timeoutMs: 30_000, what: 'the new tab to see the turn complete' });
    expect(joinerTurns).toEqual(['started', 'completed']);
    expect(joinerSaid).toEqual(['Back after the restart.']);
    expect(joiner.cursor).toBe(simulator.stats().lastRelaySequence);
    expect(joiner.pendingInteractions()).toEqual([]);
  });

  it('recovers a browser that was away longer than the Companion buffer and the relay retention through a gap', async () => {
    const { workspaceId, simulator } = await startCompanion({
      limits: { replayFrames: 4 },
      turnScript: (input) => ({ steps: [{ kind: 'message', text: `Answer to ${input}: ${'all systems nominal. '.repeat(2)}`, chunkChars: 6, chunkDelayMs: 1 }] }),
    });
    let hold: Promise<void> = Promise.resolve();
    let release: () => void = () => undefined;
    const { client, tap } = await connectBrowser(workspaceId, { gate: () => hold });
    const { thread } = await client.threads.create({ title: 'Away' });
    await client.threads.open(thread.id);
    const first = turnEnded(client, thread.id);
    await client.turns.start({ threadId: thread.id, text: 'first' });
    expect((await first).state).toBe('completed');
    await waitUntil(() => simulator.stats().acknowledgedThrough === client.cursor, { what: 'the browser\'s ack to reach the Companion' });
    const cursorBefore = client.cursor;

    // The browser loses its network and cannot come back yet.
    hold = new Promise<void>((resolve) => (release = resolve));
    const socketsBefore = tap.sockets.length;
    tap.sockets.at(-1)!.drop();
    await waitUntil(() => client.state !== 'ready', { what: 'the client to notice the drop' });

    // Meanwhile a long turn is typed at the machine, and the Companion's own link drops too: its buffer
    // (4 frames) rolled over, so it replays a gap first.
    let localEnded = false;
    simulator.runtime.startLocalTurn({
      threadId: thread.id,
      input: 'typed at the machine',
      script: { steps: [{ kind: 'message', text: 'Typed at the machine while the browser was away, in many small pieces.', chunkChars: 4, chunkDelayMs: 1 }] },
      observer: { ended: () => (localEnded = true) },
    });
    await waitUntil(() => localEnded, { what: 'the local turn to end' });
    const head = simulator.stats().lastRelaySequence;
    expect(head - cursorBefore).toBeGreaterThan(RETENTION_FRAMES + 4);
    simulator.disconnect();
    await waitUntil(() => simulator.stats().state === 'connected' && simulator.stats().gapsSent === 1, { timeoutMs: 30_000, what: 'the Companion to reconnect with a gap' });

    // The browser comes back: the relay has neither the Companion's early frames nor all of its own.
    const gap = nextEvent<'gap', { from: number; through: number; inverted: boolean }>(client, 'gap');
    const recovered = nextEvent<'snapshot', { threadId: string; reason: string; snapshot: unknown }>(client, 'snapshot', (event: { reason: string }) => event.reason === 'recovery');
    release();
    const seen = await gap;
    expect(seen.from).toBe(cursorBefore + 1);
    expect(seen.through).toBeLessThan(head);
    expect(seen.inverted).toBe(false);
    // The open thread is rebuilt from a snapshot that holds what was said meanwhile.
    const snapshot = await recovered;
    expect(snapshot.threadId).toBe(thread.id);
    expect(JSON.stringify(snapshot.snapshot)).toContain('Typed at the machine while the browser was away');
    await waitUntil(() => client.cursor === head, { timeoutMs: 30_000, what: 'the cursor to move past the gap to the head' });
    expect(tap.sockets.length).toBe(socketsBefore + 1);

    // And live frames continue.
    const said: string[] = [];
    client.on('message', (message) => (message.completed ? said.push(message.text) : undefined));
    const live = turnEnded(client, thread.id);
    await client.turns.start({ threadId: thread.id, text: 'again' });
    expect((await live).state).toBe('completed');
    expect(said).toEqual([`Answer to again: ${'all systems nominal. '.repeat(2)}`]);
    expect(client.cursor).toBe(simulator.stats().lastRelaySequence);
    expect(client.cursor).toBeGreaterThan(head);
  });
  it('comes back live after a Companion restart lost the thread it had open and it was away past the retention', async () => {
    const { workspaceId, simulator } = await startCompanion({
      turnScript: (input) => ({ steps: [{ kind: 'message', text: `About ${input}: told in many small pieces.`, chunkChars: 4, chunkDelayMs: 1 }] }),
    });
    let hold: Promise<void> = Promise.resolve();
    let release: () => void = () => undefined;
    const { client, tap } = await connectBrowser(workspaceId, { gate: () => hold });
    const { thread } = await client.threads.create({ title: 'Lost in the restart' });
    await client.threads.open(thread.id);
    const first = turnEnded(client, thread.id);
    await client.turns.start({ threadId: thread.id, text: 'before' });
    expect((await first).state).toBe('completed');

    // The Companion restarts without the thread (a fresh simulated runtime); another tab goes on working.
    const failures: Array<{ threadId: string; reason: string; code: string }> = [];
    client.on('snapshot-failed', (failure) => failures.push({ threadId: failure.threadId, reason: failure.reason, code: failure.error.code }));
    await simulator.restart();
    await waitUntil(() => simulator.stats().state === 'connected' && client.workspaceStatus === 'online', { timeoutMs: 30_000, what: 'the workspace back online' });
    const { client: other } = await connectBrowser(workspaceId);
    const { thread: next } = await other.threads.create({ title: 'After the restart' });
    const otherFirst = turnEnded(other, next.id);
    await other.turns.start({ threadId: next.id, text: 'one' });
    expect((await otherFirst).state).toBe('completed');
    await waitUntil(() => client.cursor === simulator.stats().lastRelaySequence, { what: 'the first tab to follow the new stream' });

    // The first tab is away while more is said than the relay retains.
    hold = new Promise<void>((resolve) => (release = resolve));
    tap.sockets.at(-1)!.drop();
    await waitUntil(() => client.state !== 'ready', { what: 'the client to notice the drop' });
    const otherSecond = turnEnded(other, next.id);
    await other.turns.start({ threadId: next.id, text: 'two' });
    expect((await otherSecond).state).toBe('completed');
    const head = simulator.stats().lastRelaySequence;
    release();

    // Its recovery cannot snapshot the lost thread: reported once, then the thread is let go and it is live.
    await waitUntil(() => client.cursor === head && client.state === 'ready', { timeoutMs: 30_000, what: 'the first tab to recover to the head' });
    expect(failures.some((failure) => failure.threadId === thread.id && failure.code === 'THREAD_NOT_FOUND')).toBe(true);
    expect(client.openThreadSnapshots().has(thread.id)).toBe(false);
    const socketsAfterRecovery = tap.sockets.length;
    const said: string[] = [];
    client.on('message', (message) => (message.completed && message.threadId === next.id ? said.push(message.text) : undefined));
    const live = turnEnded(client, next.id);
    await client.turns.start({ threadId: next.id, text: 'three' });
    expect((await live).state).toBe('completed');
    expect(said).toEqual(['About three: told in many small pieces.']);
    expect(tap.sockets.length).toBe(socketsAfterRecovery);
  });

  it('re-sends a pending mutation verbatim after a reconnect, and it takes effect once', async () => {
    const { workspaceId, mutations } = await startCompanion({ turnScript: () => ({ steps: [{ kind: 'message', text: 'Started exactly once.', chunkDelayMs: 1 }] }) });
    const { client, tap } = await connectBrowser(workspaceId);
    const { thread } = await client.threads.create({ title: 'Once' });
    // The connection dies just as the turn.start response arrives: the browser never sees the answer.
    let lost: string | undefined;
    tap.intercept = (text, socket) => {
      const frame = JSON.parse(text) as Frame;
      const sent = requestsSent(tap, 'turn.start')[0];
      if (lost === undefined && frame.type === 'runtime.response' && sent && frame.requestId === sent.requestId) {
        lost = text;
        socket.drop();
        return 'swallow';
      }
      return undefined;
    };
    const turns: Array<{ state: string; turnId?: string }> = [];
    client.on('turn', (update) => (update.threadId === thread.id ? turns.push(update) : undefined));
    const ended = turnEnded(client, thread.id);
    const socketsBefore = tap.sockets.length;
    const started = await client.turns.start({ threadId: thread.id, text: 'go' });

    expect(lost).toBeDefined();
    expect(tap.sockets.length).toBe(socketsBefore + 1);
    const sentTexts = tap.sent.filter((text) => (JSON.parse(text) as Frame).method === 'turn.start');
    expect(sentTexts).toHaveLength(2);
    expect(sentTexts[1]).toBe(sentTexts[0]);
    // The Companion answered the re-sent request from its idempotency cache: the same answer, one turn.
    expect(started).toEqual((JSON.parse(lost!) as { result: unknown }).result);
    expect((await ended).state).toBe('completed');
    expect(mutations.startTurn).toBe(1);
    const snapshot = await client.threads.snapshot({ threadId: thread.id });
    expect(JSON.stringify(snapshot).split('Started exactly once.').length - 1).toBe(1);
    expect(turns.filter((update) => update.state === 'started')).toHaveLength(1);
  });

  it('settles a mutation whose answer never comes as OUTCOME_UNKNOWN', async () => {
    const { workspaceId, mutations } = await startCompanion();
    // The system clock, except the timer of the request under test, which fires when the test says so: its
    // timeout happens after the request was sent, however loaded the machine is.
    const TIMEOUT_UNDER_TEST_MS = 424_242;
    const held = new Map<symbol, () => void>();
    const clock: Clock = {
      now: () => systemClock.now(),
      setTimeout: (callback, delayMs) => {
        if (delayMs !== TIMEOUT_UNDER_TEST_MS) return systemClock.setTimeout(callback, delayMs);
        const handle = Symbol('held timer');
        held.set(handle, callback);
        return handle;
      },
      clearTimeout: (handle) => (typeof handle === 'symbol' ? held.delete(handle) : systemClock.clearTimeout(handle)),
    };
    const { client, tap } = await connectBrowser(workspaceId, { clientOptions: { clock } });
    const { thread } = await client.threads.create({ title: 'Before' });
    tap.intercept = (text) => {
      const frame = JSON.parse(text) as Frame;
      return frame.type === 'runtime.response' && requestsSent(tap, 'thread.rename').some((sent) => sent.requestId === frame.requestId) ? 'swallow' : undefined;
    };
    const outcome = client.threads.rename(thread.id, 'After', { timeoutMs: TIMEOUT_UNDER_TEST_MS }).catch((error: unknown) => error);
    // It was sent, and it did happen, but its answer is lost.
    await waitUntil(() => mutations.renameThread === 1 && requestsSent(tap, 'thread.rename').length === 1, { what: 'the rename to reach the runtime' });
    await waitUntil(() => tap.received.some((text) => text.includes('"runtime.response"') && text.includes(String(requestsSent(tap, 'thread.rename')[0]?.requestId))), { what: 'the swallowed answer' });
    expect(held.size).toBe(1);
    for (const fire of held.values()) fire();
    // The browser cannot know whether it happened, so it must not claim either way.
    const settled = await outcome;
    expect(settled).toBeInstanceOf(RelayClientError);
    expect(settled).toMatchObject({ kind: 'transport', code: 'OUTCOME_UNKNOWN', retryable: false });
    const listed = await client.threads.list();
    expect(listed.items.find((item) => item.id === thread.id)?.title).toBe('After');
    expect(requestsSent(tap, 'thread.rename')).toHaveLength(1);
    expect(client.state).toBe('ready');
  });

  it('serves an end-to-end encrypted workspace: sealed both ways, plaintext requests refused', async () => {
    const workspaceId = await provisioner.createWorkspace('encrypted relay e2e', { endToEndEncrypted: true });
    const companionKeys = await generateRelayKeyPair();
    const browserKeys = await generateRelayKeyPair();
    // Public keys are exchanged out of band (here: in the test), never through the relay.
    const companionCipher = await createWorkspaceCipher({ workspaceId, privateKey: companionKeys.privateKey, peerPublicKey: await exportPublicKey(browserKeys.publicKey) });
    const browserCipher = await createWorkspaceCipher({ workspaceId, privateKey: browserKeys.privateKey, peerPublicKey: companionKeys.publicKey });
    const title = `Sealed title ${randomUUID()}`;
    const spoken = `Sealed words ${randomUUID()}`;
    const { resolutions } = await startCompanion({
      workspaceId,
      cipher: companionCipher,
      turnScript: () => ({
        steps: [
          { kind: 'message', text: spoken, chunkDelayMs: 1 },
          { kind: 'tool', agent: 'assistant', tool: 'shell', input: { command: 'make' }, durationMs: 5, approval: { explanation: 'Build the sealed project' } },
        ],
      }),
    });
    const { client, tap } = await connectBrowser(workspaceId, { cipher: browserCipher });
    const { thread } = await client.threads.create({ title });
    const offered = nextEvent<'interaction', { interaction: { interactionId: string; request: Frame } }>(client, 'interaction', (change: { change: string }) => change.change === 'pending');
    const said = nextEvent<'message', { text: string }>(client, 'message', (message: { completed: boolean }) => message.completed);
    const ended = turnEnded(client, thread.id);
    await client.turns.start({ threadId: thread.id, text: 'build it' });
    expect((await said).text).toBe(spoken);
    const { interaction } = await offered;
    expect(interaction.request).toMatchObject({ projection: { explanation: 'Build the sealed project' } });
    await client.interactions.approve(interaction.interactionId);
    expect((await ended).state).toBe('completed');
    expect(resolutions).toEqual([{ method: 'approval.request', decision: 'approve' }]);
    expect((await client.threads.list()).items.map((item) => item.title)).toContain(title);

    // On the wire, both ways, everything but ACKs was sealed.
    const kinds = (texts: string[]) => new Set(parse(texts).map((frame) => String(frame.type)));
    expect(kinds(tap.sent)).toEqual(new Set(['runtime.ack', 'runtime.encrypted']));
    const received = kinds(tap.received);
    expect(received.has('runtime.encrypted')).toBe(true);
    expect([...received].filter((type) => !['session.ready', 'workspace.status', 'runtime.encrypted'].includes(type))).toEqual([]);
    for (const text of [...tap.sent, ...tap.received]) {
      expect(text).not.toContain(title);
      expect(text).not.toContain(spoken);
      expect(text).not.toContain('Build the sealed project');
    }

    // A browser that sends a plaintext request to the cipher-bound workspace is refused.
    const descriptor = await provisioner.createBrowserSession(workspaceId, ORIGIN, ['1.2']);
    const raw = new WebSocket(descriptor.connectUrl, { origin: ORIGIN, ca });
    const frames: Frame[] = [];
    raw.on('message', (data: WebSocket.RawData) => frames.push(JSON.parse(String(data)) as Frame));
    try {
      await waitUntil(() => frames.some((frame) => frame.type === 'session.ready'), { what: 'session.ready' });
      raw.send(JSON.stringify({ type: 'runtime.ack', workspaceId, throughRelaySequence: -1 }));
      const requestId = randomUUID();
      raw.send(JSON.stringify({ type: 'runtime.request', requestId, workspaceId, method: 'thread.list', params: { limit: 10 } }));
      await waitUntil(() => frames.some((frame) => frame.type === 'runtime.response' && frame.requestId === requestId), { what: 'the answer to the plaintext request' });
      const answer = frames.find((frame) => frame.type === 'runtime.response' && frame.requestId === requestId)!;
      expect(answer.error).toMatchObject({ code: 'RELAY_ENCRYPTION_REQUIRED' });
      expect(answer.result).toBeUndefined();
      expect(JSON.stringify(frames)).not.toContain(title);
    } finally {
      raw.close();
    }
    audited.sealed = [title, spoken, 'Build the sealed project'];
  });

  it('leaves an audit of the interaction lifecycle without payload, and no plaintext of sealed workspaces, in the relay\'s database', async () => {
    expect(audited.interactionId).toBeDefined();
    expect(audited.sealed).toHaveLength(3);
    await gateway.stop({ keepDataDir: true });
    const database = await openDatabase({ mode: 'embedded', dataDir: gateway.dataDir });
    try {
      await database.withConnection(async (connection) => {
        const rows = await connection.query<{ phase: string; method: string; response_kind: string | null; user_id: string | null; workspace_id: string }>(
          'select * from relay_interaction_audit where interaction_id = $1 order by id',
          [audited.interactionId],
        );
        // The candidate is recorded when its answer passes the relay, which may be after the resolution.
        expect(rows[0]?.phase).toBe('requested');
        expect(rows.map((row) => row.phase).sort()).toEqual(['candidate', 'requested', 'resolved']);
        expect(rows.every((row) => row.method === 'approval.request' && row.workspace_id === audited.workspaceId)).toBe(true);
        expect(rows.find((row) => row.phase === 'candidate')).toMatchObject({ response_kind: 'accepted', user_id: 'companion-simulator-load' });
        // Who, what and when; nothing of what was approved.
        expect(JSON.stringify(rows)).not.toContain('Run the test suite');

        const tables = await connection.query<{ table_schema: string; table_name: string }>(
          "select table_schema, table_name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')",
        );
        expect(tables.length).toBeGreaterThan(0);
        let stored = '';
        for (const table of tables) {
          const contents = await connection.query<{ row: string }>(`select t::text as row from "${table.table_schema}"."${table.table_name}" t`);
          stored += contents.map((content) => content.row).join('\n');
        }
        // Unencrypted workspaces' projected frames are in the frames log; sealed ones and raw secrets are not.
        expect(stored).toContain('I will run the tests.');
        for (const secret of [...audited.sealed!, SENTINEL, 'shell commands need approval']) expect(stored).not.toContain(secret);
      });
    } finally {
      await database.close();
    }
  });
});
