// Issue 12 end to end: a counterparty asks the Companion's agent to act, the simulator consults the real Shield
// analyzer over gRPC before the approval goes out, and a person in a real browser client (`RelayClient` over
// `ws`, through the real relay gateway) sees the Shield's verdict in the approval, answers it, and the
// interaction settles as any approval does; the Shield's case is then closed with the matching outcome.
// With the Shield unreachable or silent, the approval still goes out and says the request was not checked.
// The gateway and the Shield run as child processes, each on its own embedded database; the simulator runs
// in this process from its environment, as `companion-simulator run` does, driven through SimulatorControl.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { simulatorControlV1, simulatorControlV1GrpcJs } from '@trustmesh/contracts';
import { SecretText } from '@trustmesh/platform-config';
import { freeLoopbackPort, waitUntil } from '@trustmesh/platform-testing';
import { RelayClient, type WebSocketLike } from '@trustmesh/relay-client';
import WebSocket from 'ws';

import { RelayControlProvisioner } from '../src/load/relay-control.provisioner';
import { APPROVAL_EXPLANATION_MAX } from '../src/shield/shield-verdict.mapping';
import { startSimulatorFromEnv, type SimulatorHost } from '../src/simulator/simulator.host';
import { startGatewayProcess, type GatewayProcess } from './gateway.process';
import { startShieldProcess, type ShieldProcess } from './shield.process';

jest.setTimeout(180_000);

const ORIGIN = 'https://app.trustmesh.test';
const CONTROL_CREDENTIAL = 'simulator-control-credential-e2e-0123';
const SHIELD_CREDENTIAL = 'acme-shield-operator-credential-e2e-4567';

interface Offered {
  interactionId: string;
  request: { projection: { agentName: string; toolName: string; explanation?: string } };
}

const scenarioDocument = (request: string) => `version: 1
name: counterparty ${request}
threads: [{ key: inbox, title: Supplier requests }]
steps:
  - { kind: counterpartyRequest, thread: inbox, request: ${request} }
`;

describe('counterparty requests checked by the real Shield, answered in a real browser client', () => {
  let gateway: GatewayProcess;
  let shield: ShieldProcess;
  let provisioner: RelayControlProvisioner;
  let ca: Buffer;
  let dir: string;
  const hosts: SimulatorHost[] = [];
  const browsers: RelayClient[] = [];

  beforeAll(async () => {
    [gateway, shield] = await Promise.all([startGatewayProcess(), startShieldProcess(SHIELD_CREDENTIAL)]);
    ca = readFileSync(gateway.certFile);
    provisioner = new RelayControlProvisioner({ address: gateway.grpcAddress, credential: new SecretText(gateway.serviceCredential), tls: null });
    dir = mkdtempSync(join(tmpdir(), 'sim-e2e-shield-client-'));
  });

  afterAll(async () => {
    for (const browser of browsers) browser.close();
    for (const host of hosts) await host.close();
    provisioner?.close();
    await Promise.all([gateway?.stop(), shield?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A simulator enrolled with a real pairing code into a new workspace, configured by `shieldEnv`. */
  async function startSimulator(shieldEnv: Record<string, string>) {
    const workspaceId = await provisioner.createWorkspace(`shield e2e ${randomUUID().slice(0, 8)}`);
    const logs: string[] = [];
    const host = await startSimulatorFromEnv(
      {
        RELAY_GATEWAY_URL: gateway.httpUrl,
        RELAY_GATEWAY_CA_FILE: gateway.certFile,
        SIMULATOR_PAIRING_CODE: await provisioner.createPairingCode(workspaceId),
        SIMULATOR_CREDENTIAL_FILE: join(dir, `${workspaceId}.json`),
        SIMULATOR_CONTROL_CREDENTIAL: CONTROL_CREDENTIAL,
        SIMULATOR_CONTROL_ADDRESS: '127.0.0.1:0',
        ...shieldEnv,
      },
      { logger: false, log: (_level, message) => logs.push(message) },
    );
    hosts.push(host);
    await waitUntil(() => host.simulator.stats().state === 'connected', { timeoutMs: 30_000, what: 'the Companion to connect' });
    return { host, workspaceId, logs, deviceId: host.enrollment.deviceId };
  }

  /** A browser client of the workspace; `received` holds every frame text its socket got. */
  async function connectBrowser(workspaceId: string) {
    const received: string[] = [];
    const client = new RelayClient({
      descriptor: () => provisioner.createBrowserSession(workspaceId, ORIGIN, ['1.2', '1.1']),
      createSocket: (url) => {
        const socket = new WebSocket(url, { origin: ORIGIN, ca });
        socket.on('message', (data) => received.push(String(data)));
        return socket as unknown as WebSocketLike;
      },
    });
    browsers.push(client);
    await client.connect();
    await waitUntil(() => client.workspaceStatus === 'online', { timeoutMs: 30_000, what: 'the workspace to be online' });
    const offered = new Promise<Offered>((resolve) => {
      const off = client.on('interaction', (change) => {
        if (change.change !== 'pending') return;
        off();
        resolve(change.interaction as unknown as Offered);
      });
    });
    const toolCompleted = new Promise<{ toolName: string; outcome?: { kind: string } }>((resolve) => {
      const off = client.on('tool', (tool) => {
        if (tool.status !== 'completed') return;
        off();
        resolve(tool as { toolName: string; outcome?: { kind: string } });
      });
    });
    return { client, received, offered, toolCompleted };
  }

  /** SimulatorControl over gRPC, as a test harness or tool drives the simulator. */
  function simulatorControl(host: SimulatorHost) {
    const client = new simulatorControlV1GrpcJs.SimulatorControlClient(host.app.address!, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${CONTROL_CREDENTIAL}`);
    const unary = <Req, Res>(method: (r: Req, m: Metadata, cb: (e: ServiceError | null, res: Res) => void) => unknown, request: Req) =>
      new Promise<Res>((resolve, reject) => method.call(client, request, metadata, (error, response) => (error ? reject(error) : resolve(response))));
    return {
      startScenario: (document: string) => unary<simulatorControlV1GrpcJs.StartScenarioRequest, simulatorControlV1GrpcJs.StartScenarioResponse>(client.startScenario, { document, format: 'yaml' }),
      scenarioState: async () => (await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client.getStats, {})).scenario?.state,
      close: () => client.close(),
    };
  }

  /** The Shield's REST API, read with the operator credential. */
  async function shieldGet(path: string): Promise<any> {
    const response = await fetch(`${shield.httpUrl}/v0.1${path}`, { headers: { authorization: `Bearer ${SHIELD_CREDENTIAL}` } });
    expect(response.status).toBe(200);
    return response.json();
  }

  /** The one case of the protected agent `agentId`, once it is closed: `{ case, consultations, outcomes }`. */
  async function closedCaseOf(agentId: string): Promise<any> {
    let detail: any;
    await waitUntil(
      async () => {
        const cases = ((await shieldGet('/shield/cases')) as Array<{ caseId: string; agentId: string }>).filter((item) => item.agentId === agentId);
        if (cases.length !== 1) return false;
        detail = await shieldGet(`/shield/cases/${cases[0]!.caseId}`);
        return detail.case.status === 'closed';
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the Shield case to be closed' },
    );
    return detail;
  }

  async function scenarioCompleted(control: ReturnType<typeof simulatorControl>): Promise<void> {
    await waitUntil(async () => (await control.scenarioState()) === simulatorControlV1.ScenarioRunState.COMPLETED, { timeoutMs: 30_000, what: 'the scenario to complete' });
  }

  it('shows the Shield stopping a bank-detail change in the approval; the rejection settles it and closes the case as prevented harm', async () => {
    const { host, workspaceId, logs, deviceId } = await startSimulator({ SIMULATOR_SHIELD_ADDRESS: shield.grpcAddress, SIMULATOR_SHIELD_CREDENTIAL: SHIELD_CREDENTIAL });
    const browser = await connectBrowser(workspaceId);
    const control = simulatorControl(host);
    try {
      expect(await control.startScenario(scenarioDocument('bank-detail-change'))).toMatchObject({ name: 'counterparty bank-detail-change', stepCount: 3 });

      const offered = await browser.offered;
      const explanation = offered.request.projection.explanation ?? '';
      expect(offered.request.projection).toMatchObject({ agentName: 'assistant', toolName: 'pay_invoice' });
      expect(explanation.startsWith('Shield: do not proceed, critical risk. Signs: identity deception')).toBe(true);
      expect(explanation).toMatch(/, urgency \+\d+\. Ask: When called back/);
      expect(Array.from(explanation).length).toBeLessThanOrEqual(APPROVAL_EXPLANATION_MAX);

      expect(await browser.client.interactions.reject(offered.interactionId)).toMatchObject({ accepted: true });
      expect(await browser.toolCompleted).toMatchObject({ toolName: 'pay_invoice', outcome: { kind: 'user_rejected' } });
      await scenarioCompleted(control);

      const closed = await closedCaseOf(deviceId);
      expect(closed.case).toMatchObject({ status: 'closed', latestDisposition: 'do_not_proceed', riskTier: 'critical', counterparty: { type: 'agent', reference: 'northwind-parts/billing-agent' } });
      expect(closed.consultations).toHaveLength(1);
      expect(closed.outcomes).toEqual([expect.objectContaining({ result: 'prevented_harm', acceptedAdvice: true, reportedBy: 'owner' })]);
      // The Shield credential crossed neither the relay nor a log line, nor did the counterparty's message.
      expect(browser.received.join('\n')).not.toContain(SHIELD_CREDENTIAL);
      expect(logs.join('\n')).not.toContain(SHIELD_CREDENTIAL);
      expect(logs.join('\n')).not.toContain('IBAN');
      expect(logs.some((line) => line.startsWith('shield consulted: case '))).toBe(true);
    } finally {
      control.close();
    }
  });

  // Runs after the test above on the same Shield account: the outcome it reported is what the Shield learns from.
  it('raises the same counterparty\'s ordinary invoice to critical risk after that prevented harm; the approval runs the action and closes the case as successful', async () => {
    const { host, workspaceId, deviceId } = await startSimulator({ SIMULATOR_SHIELD_ADDRESS: shield.grpcAddress, SIMULATOR_SHIELD_CREDENTIAL: SHIELD_CREDENTIAL });
    const browser = await connectBrowser(workspaceId);
    const control = simulatorControl(host);
    try {
      await control.startScenario(scenarioDocument('invoice-reminder'));
      const offered = await browser.offered;
      expect(offered.request.projection.explanation).toMatch(/^Shield: gather evidence first, critical risk\. Ask: /);

      expect(await browser.client.interactions.approve(offered.interactionId)).toMatchObject({ accepted: true });
      expect(await browser.toolCompleted).toMatchObject({ toolName: 'pay_invoice', outcome: { kind: 'success' } });
      await scenarioCompleted(control);

      const closed = await closedCaseOf(deviceId);
      expect(closed.case).toMatchObject({ status: 'closed', latestDisposition: 'gather_evidence', riskTier: 'critical' });
      expect(closed.consultations[0].analysis.rationale.join(' ')).toContain('earlier case ended badly (prevented_harm');
      // Approved against the Shield's advice to gather evidence first.
      expect(closed.outcomes).toEqual([expect.objectContaining({ result: 'successful', acceptedAdvice: false })]);
    } finally {
      control.close();
    }
  });

  it('still asks the person when the Shield is unreachable, silent or refuses the credential, saying the request was not checked', async () => {
    // A port nothing listens on, a server that accepts connections but never answers (the deadline ends the
    // wait), and the real Shield given a credential it does not know.
    const closedPort = await freeLoopbackPort();
    const held: Socket[] = [];
    const silent: Server = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentAddress = `127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const wrongCredential = 'not-a-credential-of-this-shield-0000';
      for (const [address, credential, phrase] of [
        [`127.0.0.1:${closedPort}`, SHIELD_CREDENTIAL, 'unreachable'],
        [silentAddress, SHIELD_CREDENTIAL, 'no answer in time'],
        [shield.grpcAddress, wrongCredential, 'credential refused'],
      ] as const) {
        const { host, workspaceId, logs } = await startSimulator({ SIMULATOR_SHIELD_ADDRESS: address, SIMULATOR_SHIELD_CREDENTIAL: credential, SIMULATOR_SHIELD_DEADLINE_MS: '1000' });
        const browser = await connectBrowser(workspaceId);
        const control = simulatorControl(host);
        try {
          await control.startScenario(scenarioDocument('bank-detail-change'));
          const offered = await browser.offered;
          expect(offered.request.projection).toMatchObject({ toolName: 'pay_invoice', explanation: `Shield could not be consulted (${phrase}); this request was not checked.` });
          expect(await browser.client.interactions.approve(offered.interactionId)).toMatchObject({ accepted: true });
          expect(await browser.toolCompleted).toMatchObject({ outcome: { kind: 'success' } });
          await scenarioCompleted(control);
          expect(host.simulator.stats().state).toBe('connected');
          expect(logs.join('\n')).not.toContain(credential);
          expect(logs.some((line) => line.startsWith('shield could not be consulted (SHIELD_'))).toBe(true);
        } finally {
          control.close();
        }
      }
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});


