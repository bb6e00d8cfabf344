// SimulatorControl over a real HTTP/2 socket: the NestJS microservice of the app, called by the generated
// grpc-js client (ts-proto codecs). The port behind it is a recording double; the real simulator behind the
// same port is exercised in simulator/companion-simulator.spec.ts.
import { Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { simulatorControlV1, simulatorControlV1GrpcJs } from '@trustmesh/contracts';
import { OTLP_SPAN_KIND, startOtlpTestCollector, waitUntil } from '@trustmesh/platform-testing';
import { readTracingConfig, startTracing } from '@trustmesh/platform-tracing';

import { SimulatorControlError, type SimulatorControlPort } from './simulator-control.port';
import { startSimulatorControlServer, type SimulatorControlServer } from './simulator-control.server';

const CREDENTIAL = 'simulator-control-credential-0123';
const { CompanionConnectionState, ScenarioRunState, LoadRunState } = simulatorControlV1;

class RecordingSimulator implements SimulatorControlPort {
  readonly calls: unknown[] = [];
  stats(): simulatorControlV1.GetStatsResponse {
    return {
      companion: {
        connectionState: CompanionConnectionState.CONNECTED,
        deviceId: 'd',
        workspaceId: 'w',
        wireVersion: '1.2',
        generation: 3,
        framesSent: 10,
        gapsSent: 1,
        acksReceived: 4,
        acknowledgedThrough: -1,
        lastRelaySequence: 7,
        bufferFrames: 8,
        bufferBytes: 1024,
        requestsReceived: 2,
        reconnects: 2,
        restarts: 0,
        connectedSince: { seconds: 1_767_225_600, nanos: 0 },
      },
      scenario: { state: ScenarioRunState.IDLE, name: '', stepsCompleted: 0, stepCount: 0, errorCode: '', errorMessage: '' },
      load: { state: LoadRunState.IDLE, report: null, errorMessage: '' },
    };
  }
  async startScenario(document: string, format: 'json' | 'yaml' | undefined) {
    this.calls.push(['startScenario', document, format]);
    if (document.includes('bad')) throw new SimulatorControlError('INVALID_ARGUMENT', 'scenario: /steps/0/kind must be one of turn, delay');
    return { name: 'demo', stepCount: 2 };
  }
  disconnect(reconnectAfterMs: number) {
    this.calls.push(['disconnect', reconnectAfterMs]);
    return { droppedGeneration: 3 };
  }
  async restart(): Promise<simulatorControlV1.RestartResponse> {
    this.calls.push(['restart']);
    throw new Error('internal detail that must not cross');
  }
  async startLoad(request: simulatorControlV1.StartLoadRequest): Promise<simulatorControlV1.StartLoadResponse> {
    this.calls.push(['startLoad', request]);
    throw new SimulatorControlError('FAILED_PRECONDITION', 'load mode needs RELAY_CONTROL_ADDRESS and RELAY_CONTROL_CREDENTIAL');
  }
  async stopLoad() {
    this.calls.push(['stopLoad']);
    return { state: LoadRunState.IDLE, report: null, errorMessage: '' };
  }
}

function bearer(credential: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${credential}`);
  return metadata;
}

type Unary<Req, Res> = (request: Req, metadata: Metadata, callback: (error: ServiceError | null, response: Res) => void) => unknown;

function call<Req, Res>(method: Unary<Req, Res>, client: simulatorControlV1GrpcJs.SimulatorControlClient, request: Req, metadata: Metadata): Promise<Res> {
  return new Promise((resolve, reject) => method.call(client, request, metadata, (error, response) => (error ? reject(error) : resolve(response))));
}

describe('gRPC SimulatorControl', () => {
  let server: SimulatorControlServer;
  let client: simulatorControlV1GrpcJs.SimulatorControlClient;
  const simulator = new RecordingSimulator();

  beforeAll(async () => {
    server = await startSimulatorControlServer(simulator, { address: '127.0.0.1:0', credential: CREDENTIAL, logger: false });
    client = new simulatorControlV1GrpcJs.SimulatorControlClient(server.address, credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('answers GetStats with the generated shapes, -1 sequences included', async () => {
    const response = await call<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client.getStats, client, {}, bearer(CREDENTIAL));
    expect(response.companion).toMatchObject({ connectionState: CompanionConnectionState.CONNECTED, acknowledgedThrough: -1, lastRelaySequence: 7, generation: 3 });
    expect(response.load?.state).toBe(LoadRunState.IDLE);
  });

  it('refuses a missing or wrong credential with UNAUTHENTICATED', async () => {
    await expect(call(client.getStats, client, {}, bearer('wrong-credential-0123456789'))).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    await expect(call(client.getStats, client, {}, new Metadata())).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
  });

  it('starts a scenario and maps a bad document to INVALID_ARGUMENT with its message', async () => {
    await expect(call(client.startScenario, client, { document: 'name: demo', format: 'yaml' }, bearer(CREDENTIAL))).resolves.toEqual({ name: 'demo', stepCount: 2 });
    await expect(call(client.startScenario, client, { document: 'bad', format: '' }, bearer(CREDENTIAL))).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: 'scenario: /steps/0/kind must be one of turn, delay',
    });
    await expect(call(client.startScenario, client, { document: '  ', format: '' }, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(call(client.startScenario, client, { document: 'x', format: 'toml' }, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(simulator.calls).toContainEqual(['startScenario', 'name: demo', 'yaml']);
  });

  it('checks the disconnect bound and passes the delay on', async () => {
    await expect(call(client.disconnect, client, { reconnectAfterMs: 250 }, bearer(CREDENTIAL))).resolves.toEqual({ droppedGeneration: 3 });
    await expect(call(client.disconnect, client, { reconnectAfterMs: 300_001 }, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(simulator.calls).toContainEqual(['disconnect', 250]);
  });

  it('turns an internal failure into INTERNAL with a fixed message', async () => {
    const error = (await call(client.restart, client, {}, bearer(CREDENTIAL)).catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status.INTERNAL);
    expect(error.details).not.toContain('internal detail');
  });

  it('checks load bounds before the port, and maps its refusal to FAILED_PRECONDITION', async () => {
    const request = { companions: 0, browsers: 0, durationSeconds: 0, turnIntervalMs: 0, wireVersion: '' };
    await expect(call(client.startLoad, client, request, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(call(client.startLoad, client, { ...request, companions: 1, browsers: 10_001 }, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(call(client.startLoad, client, { ...request, companions: 1, wireVersion: '1.0' }, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(call(client.startLoad, client, { ...request, companions: 2, browsers: 4 }, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.FAILED_PRECONDITION });
    await expect(call(client.stopLoad, client, {}, bearer(CREDENTIAL))).resolves.toEqual({ load: { state: LoadRunState.IDLE, report: null, errorMessage: '' } });
  });
});

describe('gRPC SimulatorControl traced', () => {
  it('answers each call under a server span, a child of the caller trace, with the status it sent', async () => {
    const collector = await startOtlpTestCollector();
    const tracing = startTracing(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' }, 'companion-simulator'), { instanceId: 'device-1' });
    const server = await startSimulatorControlServer(new RecordingSimulator(), { address: '127.0.0.1:0', credential: CREDENTIAL, logger: false });
    const client = new simulatorControlV1GrpcJs.SimulatorControlClient(server.address, credentials.createInsecure());
    try {
      const traced = bearer(CREDENTIAL);
      traced.set('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
      await call(client.getStats, client, {}, traced);
      await expect(call(client.disconnect, client, { reconnectAfterMs: 300_001 }, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
      await expect(call(client.restart, client, {}, bearer(CREDENTIAL))).rejects.toMatchObject({ code: status.INTERNAL });
      await tracing.flush();
      const named = (method: string) => collector.spans().find((span) => span.name === `trustmesh.relay.v1.SimulatorControl/${method}`);
      await waitUntil(() => ['GetStats', 'Disconnect', 'Restart'].every((method) => named(method) !== undefined), { what: 'the SimulatorControl server spans', timeoutMs: 10_000 });
      expect(named('GetStats')).toMatchObject({
        kind: OTLP_SPAN_KIND.server,
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        parentSpanId: '00f067aa0ba902b7',
        service: 'companion-simulator',
        resource: expect.objectContaining({ 'service.instance.id': 'device-1' }),
        attributes: expect.objectContaining({ 'rpc.system': 'grpc', 'rpc.service': 'trustmesh.relay.v1.SimulatorControl', 'rpc.method': 'GetStats', 'rpc.grpc.status_code': status.OK }),
      });
      // A refusal of the caller's request is not the server's failure; an internal one is.
      expect(named('Disconnect')).toMatchObject({ parentSpanId: '', statusCode: 0, attributes: expect.objectContaining({ 'rpc.grpc.status_code': status.INVALID_ARGUMENT }) });
      expect(named('Restart')).toMatchObject({ statusCode: 2, attributes: expect.objectContaining({ 'rpc.grpc.status_code': status.INTERNAL }) });
      expect(JSON.stringify(collector.spans())).not.toContain('internal detail');
    } finally {
      client.close();
      await server.close();
      await tracing.shutdown();
      await collector.close();
    }
  });
});
