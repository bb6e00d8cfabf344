// The whole simulated Companion (real CompanionSession core over the real simulated runtime, real ws
// transport) against a relay played by a ws server, driven through gRPC SimulatorControl with the generated
// grpc-js client: requests are served, a turn streams numbered frames, a disconnect replays the unacked
// frames in order in a new generation, and a restart starts the stream again at relaySequence 0.
import { randomUUID } from 'node:crypto';

import { Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { simulatorControlV1, simulatorControlV1GrpcJs } from '@trustmesh/contracts';
import { waitUntil } from '@trustmesh/platform-testing';

import { FakeRelay, framesOf, type RelaySocket } from '../../test/fake-relay';
import { startSimulatorControlServer, type SimulatorControlServer } from '../grpc/simulator-control.server';
import { CompanionSimulator } from './companion-simulator';
import { createCompanionCore, createRuntime, DEFAULT_BEHAVIOUR } from './companion.factory';
import { SimulatorControlService } from './simulator-control.service';

const DEVICE_ID = '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53';
const WORKSPACE_ID = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';
const CREDENTIAL = 'device-credential-0123456789abcdef';
const CONTROL_CREDENTIAL = 'simulator-control-credential-0123';
const { CompanionConnectionState } = simulatorControlV1;

type Frame = Record<string, unknown>;

function bearer(): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${CONTROL_CREDENTIAL}`);
  return metadata;
}

function unary<Req, Res>(
  client: simulatorControlV1GrpcJs.SimulatorControlClient,
  method: (request: Req, metadata: Metadata, callback: (error: ServiceError | null, response: Res) => void) => unknown,
  request: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => method.call(client, request, bearer(), (error, response) => (error ? reject(error) : resolve(response))));
}

function request(method: string, params: Record<string, unknown>): { requestId: string; text: string } {
  const requestId = randomUUID();
  return { requestId, text: JSON.stringify({ type: 'runtime.request', requestId, workspaceId: WORKSPACE_ID, method, params }) };
}

async function call(socket: RelaySocket, method: string, params: Record<string, unknown>): Promise<Frame> {
  const { requestId, text } = request(method, params);
  socket.socket.send(text);
  let response: Frame | undefined;
  await waitUntil(
    () => {
      response = framesOf(socket).find((frame) => frame.type === 'runtime.response' && frame.requestId === requestId);
      return response !== undefined;
    },
    { what: `the response to ${method}` },
  );
  return response as Frame;
}

const sequenced = (socket: RelaySocket): Frame[] => framesOf(socket).filter((frame) => typeof frame.relaySequence === 'number');
const sequences = (socket: RelaySocket): number[] => sequenced(socket).map((frame) => frame.relaySequence as number);
const isTurnEnd = (frame: Frame): boolean => {
  const event = (frame.event as { event?: { type?: string } } | undefined)?.event;
  return typeof event?.type === 'string' && ['turn.completed', 'turn.failed', 'turn.cancelled'].includes(event.type);
};

describe('the simulated Companion against a relay, driven by SimulatorControl', () => {
  let relay: FakeRelay;
  let simulator: CompanionSimulator;
  let server: SimulatorControlServer;
  let client: simulatorControlV1GrpcJs.SimulatorControlClient;
  let threadId = '';

  beforeAll(async () => {
    relay = await FakeRelay.start();
    const behaviour = { ...DEFAULT_BEHAVIOUR, seed: 7, sentinel: 'relay-security-sentinel' };
    simulator = new CompanionSimulator({
      identity: { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL },
      companionUrl: relay.url,
      tls: { insecureDev: false },
      wireVersion: '1.2',
      createRuntime: (scenario) => createRuntime(behaviour, scenario),
      createCore: (hosted) => createCompanionCore(hosted, { workspaceId: WORKSPACE_ID, wireVersion: '1.2' }),
      delayFor: () => 10,
    });
    await simulator.start();
    server = await startSimulatorControlServer(new SimulatorControlService(simulator, null), { address: '127.0.0.1:0', credential: CONTROL_CREDENTIAL, logger: false });
    client = new simulatorControlV1GrpcJs.SimulatorControlClient(server.address, credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await server?.close();
    await simulator?.stop();
    await relay?.close();
  });

  it('connects with device.connect first and serves requests', async () => {
    await waitUntil(() => relay.sockets.length === 1 && relay.latest().frames.length >= 1, { what: 'device.connect' });
    const socket = relay.latest();
    expect(framesOf(socket)[0]).toEqual({ type: 'device.connect', protocolVersion: '1.2', deviceId: DEVICE_ID, pairingToken: CREDENTIAL });

    const created = await call(socket, 'thread.create', { requestId: randomUUID(), title: 'Simulated' });
    threadId = ((created.result as { thread: { id: string } }).thread).id;
    const listed = await call(socket, 'thread.list', { limit: 10 });
    expect((listed.result as { items: Array<{ id: string }> }).items.map((item) => item.id)).toContain(threadId);
    const initialize = await call(socket, 'initialize', { protocolVersions: ['1.2'], client: { name: 'browser', version: '1' } });
    expect(initialize.error).toMatchObject({ code: 'COMPANION_ERROR', retryable: false });

    const stats = await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client, client.getStats, {});
    expect(stats.companion).toMatchObject({ connectionState: CompanionConnectionState.CONNECTED, deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, wireVersion: '1.2', generation: 1, requestsReceived: 3 });
  });

  it('streams a turn as numbered frames, and replays the unacked ones in order after a disconnect', async () => {
    const first = relay.latest();
    const started = await call(first, 'turn.start', { requestId: randomUUID(), threadId, turnId: randomUUID(), input: { text: 'hello' } });
    expect(started.result).toMatchObject({ accepted: true });
    await waitUntil(() => sequenced(first).some(isTurnEnd), { what: 'the end of the turn' });
    const streamed = sequences(first);
    expect(streamed).toEqual(streamed.map((_, index) => index));
    expect(first.frames.join('\n')).not.toContain('relay-security-sentinel');

    const ackThrough = Math.floor(streamed.length / 2);
    first.socket.send(JSON.stringify({ type: 'runtime.ack', workspaceId: WORKSPACE_ID, throughRelaySequence: ackThrough }));
    await waitUntil(async () => (await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client, client.getStats, {})).companion?.acknowledgedThrough === ackThrough, { what: 'the ack' });

    const dropped = await unary<simulatorControlV1GrpcJs.DisconnectRequest, simulatorControlV1GrpcJs.DisconnectResponse>(client, client.disconnect, { reconnectAfterMs: 0 });
    expect(dropped.droppedGeneration).toBe(1);
    await waitUntil(() => relay.sockets.length === 2 && sequences(relay.latest()).length === streamed.length - ackThrough - 1, { what: 'the replay' });
    const second = relay.latest();
    expect((framesOf(second)[0] as Frame).type).toBe('device.connect');
    expect(sequences(second)).toEqual(streamed.slice(ackThrough + 1));

    const stats = await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client, client.getStats, {});
    expect(stats.companion).toMatchObject({ generation: 2, reconnects: 1, lastRelaySequence: streamed.length - 1, bufferFrames: streamed.length - ackThrough - 1 });
  });

  it('restarts with the stream back at relaySequence 0 on a fresh runtime', async () => {
    const restarted = await unary<simulatorControlV1GrpcJs.RestartRequest, simulatorControlV1GrpcJs.RestartResponse>(client, client.restart, {});
    expect(restarted.restarts).toBe(1);
    await waitUntil(() => relay.sockets.length === 3 && relay.latest().frames.length >= 1, { what: 'the new socket' });
    const third = relay.latest();
    expect(sequences(third)).toEqual([]);
    let stats = await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client, client.getStats, {});
    expect(stats.companion).toMatchObject({ restarts: 1, generation: 1, lastRelaySequence: -1, acknowledgedThrough: -1, bufferFrames: 0 });

    const listed = await call(third, 'thread.list', { limit: 10 });
    expect((listed.result as { items: Array<{ id: string }> }).items.map((item) => item.id)).not.toContain(threadId);
    const created = await call(third, 'thread.create', { requestId: randomUUID() });
    threadId = (created.result as { thread: { id: string } }).thread.id;
    await call(third, 'turn.start', { requestId: randomUUID(), threadId, turnId: randomUUID(), input: { text: 'again' } });
    await waitUntil(() => sequenced(third).some(isTurnEnd), { what: 'the turn after the restart' });
    expect(sequences(third)[0]).toBe(0);
    stats = await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client, client.getStats, {});
    expect(stats.companion?.lastRelaySequence).toBe(sequences(third).length - 1);
  });

  it('refuses a bad scenario document with INVALID_ARGUMENT naming what is wrong', async () => {
    const startScenario = (document: string, format: string) =>
      unary<simulatorControlV1GrpcJs.StartScenarioRequest, simulatorControlV1GrpcJs.StartScenarioResponse>(client, client.startScenario, { document, format });
    const missing = (await startScenario('{"version":1,"name":"x"}', 'json').catch((error: ServiceError) => error)) as ServiceError;
    expect(missing.code).toBe(status.INVALID_ARGUMENT);
    expect(missing.details).toMatch(/steps/);
    const syntax = (await startScenario('version: 1\nname: [unclosed', 'yaml').catch((error: ServiceError) => error)) as ServiceError;
    expect(syntax.code).toBe(status.INVALID_ARGUMENT);
    expect(syntax.details).toMatch(/not readable/);
    const badStep = (await startScenario(JSON.stringify({ version: 1, name: 'x', steps: [{ kind: 'teleport' }] }), 'json').catch((error: ServiceError) => error)) as ServiceError;
    expect(badStep.code).toBe(status.INVALID_ARGUMENT);
    expect(badStep.details).toContain('/steps/0');
  });

  it('plays a scenario with a disconnect and a restart, honouring both', async () => {
    const before = relay.sockets.length;
    const restartsBefore = simulator.stats().restarts;
    const reconnectsBefore = simulator.stats().reconnects;
    const document = [
      'version: 1',
      'name: drop-and-restart',
      'threads:',
      '  - key: main',
      '    title: Scenario thread',
      'steps:',
      '  - kind: turn',
      '    thread: main',
      '    input: first',
      '    steps:',
      '      - { kind: message, text: before the drop, chunkDelayMs: 1 }',
      '  - kind: disconnect',
      '    forMs: 20',
      '  - kind: turn',
      '    thread: main',
      '    input: second',
      '    steps:',
      '      - { kind: message, text: after the drop, chunkDelayMs: 1 }',
      '  - kind: restart',
      '  - kind: turn',
      '    thread: main',
      '    input: third',
      '    steps:',
      '      - { kind: message, text: after the restart, chunkDelayMs: 1 }',
    ].join('\n');
    const started = await unary<simulatorControlV1GrpcJs.StartScenarioRequest, simulatorControlV1GrpcJs.StartScenarioResponse>(client, client.startScenario, { document, format: 'yaml' });
    expect(started.name).toBe('drop-and-restart');
    await waitUntil(async () => (await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client, client.getStats, {})).scenario?.state === simulatorControlV1.ScenarioRunState.COMPLETED, { what: 'the scenario to complete' });

    const stats = simulator.stats();
    expect(stats.restarts).toBe(restartsBefore + 1);
    // The disconnect dropped the transport (a reconnect was scheduled); the restart opened a new socket whose
    // stream starts again at 0.
    expect(stats.reconnects).toBeGreaterThan(reconnectsBefore);
    await waitUntil(() => relay.sockets.length > before && sequenced(relay.latest()).some(isTurnEnd), { what: 'the turn after the restart' });
    expect(sequences(relay.latest())[0]).toBe(0);
  });
});

describe('the simulated Companion after its buffer rolled over', () => {
  let relay: FakeRelay;
  let simulator: CompanionSimulator;

  beforeAll(async () => {
    relay = await FakeRelay.start();
    simulator = new CompanionSimulator({
      identity: { deviceId: DEVICE_ID, workspaceId: WORKSPACE_ID, deviceCredential: CREDENTIAL },
      companionUrl: relay.url,
      tls: { insecureDev: false },
      wireVersion: '1.1',
      createRuntime: () => createRuntime({ ...DEFAULT_BEHAVIOUR, seed: 11 }),
      createCore: (hosted) => createCompanionCore(hosted, { workspaceId: WORKSPACE_ID, wireVersion: '1.1', limits: { replayFrames: 3 } }),
      delayFor: () => 10,
    });
    await simulator.start();
  });
  afterAll(async () => {
    await simulator?.stop();
    await relay?.close();
  });

  it('sends the gap first, then the retained frames in order, on the next generation', async () => {
    await waitUntil(() => relay.sockets.length === 1 && relay.latest().frames.length >= 1, { what: 'device.connect' });
    const first = relay.latest();
    expect(framesOf(first)[0]).toMatchObject({ type: 'device.connect', protocolVersion: '1.1' });
    const created = await call(first, 'thread.create', { requestId: randomUUID() });
    const thread = (created.result as { thread: { id: string } }).thread.id;
    await call(first, 'turn.start', { requestId: randomUUID(), threadId: thread, turnId: randomUUID(), input: { text: 'roll over' } });
    await waitUntil(() => sequenced(first).some(isTurnEnd), { what: 'the end of the turn' });
    const last = sequences(first).length - 1;
    expect(last).toBeGreaterThan(3);

    simulator.disconnect();
    await waitUntil(() => relay.sockets.length === 2 && relay.latest().frames.length === 5, { what: 'gap and replay' });
    const replayed = framesOf(relay.latest()).slice(1);
    expect(replayed[0]).toEqual({ type: 'runtime.gap', workspaceId: WORKSPACE_ID, fromRelaySequence: 0, throughRelaySequence: last - 3, recovery: 'thread.snapshot' });
    expect(replayed.slice(1).map((frame) => frame.relaySequence)).toEqual([last - 2, last - 1, last]);
    expect(simulator.stats().gapsSent).toBe(1);
  });
});
