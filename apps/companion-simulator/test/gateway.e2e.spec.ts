// End to end through the real relay gateway (a child process on embedded defaults, its self-signed
// certificate trusted through RELAY_GATEWAY_CA_FILE): the CLI enrolls with a real pairing code, the simulator
// connects and serves a real browser client (libs/relay/client) a thread list and a turn, SimulatorControl
// reports it, and the load mode measures delivered frames through the gateway.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { simulatorControlV1, simulatorControlV1GrpcJs } from '@trustmesh/contracts';
import type { GrpcClientTarget } from '@trustmesh/platform-config';
import { waitUntil } from '@trustmesh/platform-testing';
import type { CompanionDiagnostic } from '@trustmesh/relay-companion';
import { RelayClient, type WebSocketLike } from '@trustmesh/relay-client';
import WebSocket from 'ws';

import { createWorkspaceCipher, exportPrivateKey, exportPublicKey, generateRelayKeyPair } from '@trustmesh/relay-encryption';

import { runSimulatorCli, type CliIo } from '../src/cli/simulator-cli';
import { loadSimulatorConfig } from '../src/config/simulator-config';
import { loadEnrollment } from '../src/enrollment/credential.store';
import { startSimulatorControlServer } from '../src/grpc/simulator-control.server';
import { runLoad, startLoad } from '../src/load/load-driver';
import { simulatorLoadStack } from '../src/load/load-stack';
import { RelayControlProvisioner } from '../src/load/relay-control.provisioner';
import { SimulatorControlService } from '../src/simulator/simulator-control.service';
import { startSimulatorFromEnv, startSimulatorHost, type SimulatorHost } from '../src/simulator/simulator.host';
import { startGatewayProcess, type GatewayProcess } from './gateway.process';

jest.setTimeout(120_000);

const ORIGIN = 'https://app.trustmesh.test';
const CONTROL_CREDENTIAL = 'simulator-control-credential-e2e-0123';

function io(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (t) => out.push(t), stderr: (t) => err.push(t), stopRequested: () => new Promise(() => undefined) };
}

describe('the companion simulator against the real relay gateway', () => {
  let gateway: GatewayProcess;
  let provisioner: RelayControlProvisioner;
  let dir: string;
  let host: SimulatorHost | undefined;
  let browser: RelayClient | undefined;
  let workspaceId: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    // RelayControl over TLS too, trusting the same development certificate.
    gateway = await startGatewayProcess({ RELAY_GRPC_TLS: 'true' });
    dir = mkdtempSync(join(tmpdir(), 'sim-e2e-'));
    provisioner = new RelayControlProvisioner(relayControlOf(gateway));
    workspaceId = await provisioner.createWorkspace('simulator e2e');
    env = {
      RELAY_GATEWAY_URL: gateway.httpUrl,
      RELAY_GATEWAY_CA_FILE: gateway.certFile,
      SIMULATOR_CREDENTIAL_FILE: join(dir, 'device.json'),
      SIMULATOR_WIRE_VERSION: '1.2',
      SIMULATOR_CONTROL_CREDENTIAL: CONTROL_CREDENTIAL,
      SIMULATOR_CONTROL_ADDRESS: '127.0.0.1:0',
      SIMULATOR_OPERATOR_ADDRESS: '127.0.0.1:0',
      SIMULATOR_SENTINEL: 'relay-security-sentinel',
    };
  });

  afterAll(async () => {
    browser?.close();
    await host?.close();
    provisioner?.close();
    await gateway?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('enrolls with a real pairing code through the CLI, and refuses to enroll twice', async () => {
    const code = await provisioner.createPairingCode(workspaceId);
    const first = io();
    expect(await runSimulatorCli(['enroll'], first, { ...env, SIMULATOR_PAIRING_CODE: code })).toBe(0);
    expect(first.out.join('')).toContain(`in workspace ${workspaceId}`);
    expect(first.out.join('') + first.err.join('')).not.toContain(code);
    expect(statSync(env['SIMULATOR_CREDENTIAL_FILE']!).mode & 0o777).toBe(0o600);
    expect(readFileSync(env['SIMULATOR_CREDENTIAL_FILE']!, 'utf8')).not.toContain(code);

    const second = io();
    expect(await runSimulatorCli(['enroll'], second, { ...env, SIMULATOR_PAIRING_CODE: await provisioner.createPairingCode(workspaceId) })).toBe(1);
    expect(second.err.join('')).toContain('ALREADY_ENROLLED');
  });

  it('connects and serves a browser\'s thread.list and a turn through the gateway', async () => {
    host = await startSimulatorFromEnv(env, { logger: false });
    await waitUntil(() => host!.simulator.stats().state === 'connected', { timeoutMs: 30_000, what: 'the Companion to connect' });

    // The operator port: ready while connected, with the process metrics and the Companion's own.
    const operator = host.operatorUrl as string;
    expect(operator).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${operator}/healthz`)).status).toBe(200);
    const ready = await fetch(`${operator}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', checks: { relay: 'connected' } }]);
    const metrics = await (await fetch(`${operator}/metrics`)).text();
    expect(metrics).toMatch(/^process_cpu_seconds_total [\d.e-]+$/m);
    expect(metrics).toContain('\nsimulator_connected 1\n');
    expect(metrics).toMatch(/^simulator_frames_sent_total \d+$/m);

    const ca = readFileSync(gateway.certFile);
    const received: string[] = [];
    browser = new RelayClient({
      descriptor: () => provisioner.createBrowserSession(workspaceId, ORIGIN, ['1.2', '1.1']),
      createSocket: (url) => {
        const socket = new WebSocket(url, { origin: ORIGIN, ca });
        socket.on('message', (data) => received.push(String(data)));
        return socket as unknown as WebSocketLike;
      },
    });
    await browser.connect();
    await waitUntil(() => browser!.workspaceStatus === 'online', { timeoutMs: 30_000, what: 'the workspace to be online' });

    const created = await browser.threads.create({ title: 'Through the gateway' });
    const listed = await browser.threads.list();
    expect(listed.items.map((item) => item.id)).toContain(created.thread.id);

    const ended = new Promise<string>((resolve) => browser!.on('turn', (update) => (['completed', 'failed', 'cancelled'].includes(update.state) ? resolve(update.state) : undefined)));
    await browser.turns.start({ threadId: created.thread.id, text: 'hello through the relay' });
    expect(await ended).toBe('completed');
    expect(received.join('\n')).not.toContain('relay-security-sentinel');

    const client = new simulatorControlV1GrpcJs.SimulatorControlClient(host.app.address!, credentials.createInsecure());
    try {
      const metadata = new Metadata();
      metadata.set('authorization', `Bearer ${CONTROL_CREDENTIAL}`);
      await waitUntil(
        async () => {
          const stats = await new Promise<simulatorControlV1GrpcJs.GetStatsResponse>((resolve, reject) =>
            client.getStats({}, metadata, (error: ServiceError | null, response: simulatorControlV1GrpcJs.GetStatsResponse) => (error ? reject(error) : resolve(response))),
          );
          return stats.companion?.connectionState === simulatorControlV1.CompanionConnectionState.CONNECTED && (stats.companion?.acknowledgedThrough ?? -1) >= 0;
        },
        { timeoutMs: 30_000, what: 'the browser\'s acks to reach the Companion' },
      );
    } finally {
      client.close();
    }
  });

  it('measures delivered frames, latency and errors in load mode through the gateway', async () => {
    const report = await runLoad({
      gatewayUrl: gateway.httpUrl,
      tls: { ca: readFileSync(gateway.certFile), insecureDev: false },
      relayControl: relayControlOf(gateway),
      stack: simulatorLoadStack({ turns: { messageChars: 64, chunkChars: 16, chunkDelayMs: 2, toolCalls: 1, toolDurationMs: 5 } }),
      companions: 2,
      browsers: 4,
      origin: ORIGIN,
      turnIntervalMs: 10,
      durationMs: 1500,
      seed: Number.parseInt(randomUUID().slice(0, 6), 16),
    });
    expect(report).toMatchObject({ companions: 2, browsers: 4, errors: 0, gaps: 0 });
    expect(report.framesSent).toBeGreaterThan(0);
    expect(report.framesDelivered).toBeGreaterThan(0);
    expect(report.latencyMs.samples).toBeGreaterThan(0);
    expect(report.latencyMs.p99).toBeGreaterThanOrEqual(report.latencyMs.p50);
  });

  it('plays a scenario file through the CLI and exits 0 when it completes', async () => {
    const scenarioDir = mkdtempSync(join(tmpdir(), 'sim-e2e-scenario-'));
    try {
      const file = join(scenarioDir, 'short.yaml');
      writeFileSync(
        file,
        ['version: 1', 'name: short', 'threads:', '  - key: main', 'steps:', '  - kind: turn', '    thread: main', '    input: hi', '    steps:', '      - { kind: message, text: hello, chunkDelayMs: 1 }', '  - kind: disconnect', '    forMs: 10', '  - kind: delay', '    ms: 50'].join('\n'),
      );
      const workspace = await provisioner.createWorkspace('scenario e2e');
      const cli = io();
      const code = await runSimulatorCli(['scenario', file, '--credential-file', join(scenarioDir, 'device.json')], cli, {
        ...env,
        SIMULATOR_CONTROL_CREDENTIAL: '',
        SIMULATOR_CONTROL_ADDRESS: '',
        SIMULATOR_PAIRING_CODE: await provisioner.createPairingCode(workspace),
      });
      expect(code).toBe(0);
      expect(cli.err.join('')).toBe('');
      expect(cli.out.join('')).toContain('scenario "short" completed');
      // Logs are the platform's one line shape (as the gateway's): the scripted disconnect is one of them.
      const logs = cli.out.join('').split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const line of logs) {
        expect(line).toMatchObject({ time: expect.any(String), level: expect.stringMatching(/^(debug|info|warn|error)$/), service: 'companion-simulator', replica: expect.any(String), msg: expect.any(String) });
      }
      expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', component: 'companion-transport', msg: expect.stringContaining('companion transport lost') }));
    } finally {
      rmSync(scenarioDir, { recursive: true, force: true });
    }
  });

  /**
   * An end-to-end encrypted workspace and a Companion enrolled in it with the simulator's CLI, its key and
   * device files in `dir`; the browser's key pair is the test's.
   */
  async function enrolledEncryptedCompanion(name: string, dir: string) {
    const workspace = await provisioner.createWorkspace(name, { endToEndEncrypted: true });
    const companionKeys = await generateRelayKeyPair();
    const browserKeys = await generateRelayKeyPair();
    const keyFile = join(dir, 'companion.key');
    writeFileSync(keyFile, await exportPrivateKey(companionKeys.privateKey, 'pkcs8'), { mode: 0o600 });
    const encryptedEnv = {
      ...env,
      SIMULATOR_CONTROL_CREDENTIAL: '',
      SIMULATOR_CONTROL_ADDRESS: '',
      SIMULATOR_CREDENTIAL_FILE: join(dir, 'device.json'),
      SIMULATOR_PAIRING_CODE: await provisioner.createPairingCode(workspace),
      SIMULATOR_E2EE_PRIVATE_KEY_FILE: keyFile,
      SIMULATOR_E2EE_PEER_PUBLIC_KEY: await exportPublicKey(browserKeys.publicKey),
    };
    expect(await runSimulatorCli(['enroll'], io(), encryptedEnv)).toBe(0);
    const config = loadSimulatorConfig({ ...encryptedEnv, SIMULATOR_PAIRING_CODE: '' }, 'run');
    const enrollment = (await loadEnrollment(config.credentialFile))!;
    return { workspace, companionKeys, browserKeys, config, enrollment };
  }

  it('serves an end-to-end encrypted workspace with the configured keys', async () => {
    const encryptedDir = mkdtempSync(join(tmpdir(), 'sim-e2e-e2ee-'));
    let encryptedHost: SimulatorHost | undefined;
    let encryptedBrowser: RelayClient | undefined;
    try {
      const { workspace, companionKeys, browserKeys, config, enrollment } = await enrolledEncryptedCompanion('encrypted e2e', encryptedDir);
      encryptedHost = await startSimulatorHost(config, { enrollment, logger: false });
      await waitUntil(() => encryptedHost!.simulator.stats().state === 'connected', { timeoutMs: 30_000, what: 'the Companion to connect' });

      const ca = readFileSync(gateway.certFile);
      const wire: string[] = [];
      encryptedBrowser = new RelayClient({
        descriptor: () => provisioner.createBrowserSession(workspace, ORIGIN, ['1.2', '1.1']),
        createSocket: (url) => {
          const socket = new WebSocket(url, { origin: ORIGIN, ca });
          socket.on('message', (data) => wire.push(String(data)));
          return socket as unknown as WebSocketLike;
        },
        cipher: await createWorkspaceCipher({ workspaceId: workspace, privateKey: browserKeys.privateKey, peerPublicKey: companionKeys.publicKey }),
      });
      await encryptedBrowser.connect();
      await waitUntil(() => encryptedBrowser!.workspaceStatus === 'online', { timeoutMs: 30_000, what: 'the workspace to be online' });
      const created = await encryptedBrowser.threads.create({ title: 'Sealed thread title' });
      const listed = await encryptedBrowser.threads.list();
      expect(listed.items.map((item) => item.id)).toContain(created.thread.id);
      // What crossed the relay was sealed.
      const responses = wire.map((text) => JSON.parse(text) as { type: string }).filter((frame) => frame.type === 'runtime.response' || frame.type === 'runtime.encrypted');
      expect(responses.length).toBeGreaterThan(0);
      expect(responses.every((frame) => frame.type === 'runtime.encrypted')).toBe(true);
      expect(wire.join('\n')).not.toContain('Sealed thread title');
    } finally {
      encryptedBrowser?.close();
      await encryptedHost?.close();
      rmSync(encryptedDir, { recursive: true, force: true });
    }
  });

  it('refuses a recorded sealed turn.start replayed after a Companion restart; fresh envelopes still open', async () => {
    const encryptedDir = mkdtempSync(join(tmpdir(), 'sim-e2e-e2ee-replay-'));
    let companion: SimulatorHost | undefined;
    let encryptedBrowser: RelayClient | undefined;
    try {
      const { workspace, companionKeys, browserKeys, config, enrollment } = await enrolledEncryptedCompanion('encrypted replay e2e', encryptedDir);
      const diagnostics: CompanionDiagnostic[] = [];
      const startCompanion = async () => {
        const started = await startSimulatorHost(config, { enrollment, logger: false, onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
        await waitUntil(() => started.simulator.stats().state === 'connected', { timeoutMs: 30_000, what: 'the Companion to connect' });
        return started;
      };
      companion = await startCompanion();

      // The browser's socket, as the relay sees it: what the browser sends (to record) and receives.
      const ca = readFileSync(gateway.certFile);
      let socket: WebSocket | undefined;
      const sent: string[] = [];
      const received: string[] = [];
      encryptedBrowser = new RelayClient({
        descriptor: () => provisioner.createBrowserSession(workspace, ORIGIN, ['1.2', '1.1']),
        createSocket: (url) => {
          socket = new WebSocket(url, { origin: ORIGIN, ca });
          const send = socket.send.bind(socket);
          socket.send = ((data: string) => (sent.push(data), send(data))) as typeof socket.send;
          socket.on('message', (data) => received.push(String(data)));
          return socket as unknown as WebSocketLike;
        },
        cipher: await createWorkspaceCipher({ workspaceId: workspace, privateKey: browserKeys.privateKey, peerPublicKey: companionKeys.publicKey, role: 'browser' }),
      });
      await encryptedBrowser.connect();
      await waitUntil(() => encryptedBrowser!.workspaceStatus === 'online', { timeoutMs: 30_000, what: 'the workspace to be online' });
      const thread = await encryptedBrowser.threads.create({ title: 'before the restart' });
      const sentBeforeTurn = sent.length;
      await encryptedBrowser.turns.start({ threadId: thread.thread.id, text: 'run this once' });
      const recorded = sent.slice(sentBeforeTurn).find((text) => (JSON.parse(text) as { type: string }).type === 'runtime.encrypted')!;
      const recordedRequestId = (JSON.parse(recorded) as { requestId: string }).requestId;
      const answersTo = (requestId: string) =>
        received.filter((text) => {
          const frame = JSON.parse(text) as { type: string; requestId?: string };
          return frame.type === 'runtime.encrypted' && frame.requestId === requestId;
        }).length;
      expect(answersTo(recordedRequestId)).toBe(1);

      // The Companion restarts (a new host over the same files) seconds later: well within the 60 s skew allowance.
      await companion.close();
      await waitUntil(() => encryptedBrowser!.workspaceStatus === 'offline', { timeoutMs: 30_000, what: 'the workspace to go offline' });
      companion = await startCompanion();
      await waitUntil(() => encryptedBrowser!.workspaceStatus === 'online', { timeoutMs: 30_000, what: 'the workspace to be online again' });

      // The relay replays the recorded envelope: the Companion refuses it without executing or answering it.
      socket!.send(recorded);
      await waitUntil(() => diagnostics.some((diagnostic) => diagnostic.code === 'ENVELOPE_REPLAYED') || answersTo(recordedRequestId) > 1, {
        timeoutMs: 30_000,
        what: 'the restarted Companion to handle the replayed envelope',
      });
      expect(diagnostics).toContainEqual({ event: 'inbound-dropped', code: 'ENVELOPE_REPLAYED' });
      expect(answersTo(recordedRequestId)).toBe(1);

      // Fresh envelopes from the same browser still open.
      const again = await encryptedBrowser.threads.create({ title: 'after the restart' });
      const ended = new Promise<string>((resolve) => encryptedBrowser!.on('turn', (update) => (['completed', 'failed', 'cancelled'].includes(update.state) ? resolve(update.state) : undefined)));
      await encryptedBrowser.turns.start({ threadId: again.thread.id, text: 'and this once' });
      expect(await ended).toBe('completed');
      expect(answersTo(recordedRequestId)).toBe(1);
    } finally {
      encryptedBrowser?.close();
      await companion?.close();
      rmSync(encryptedDir, { recursive: true, force: true });
    }
  });

  it('starts and stops load through SimulatorControl', async () => {
    const control = new SimulatorControlService(null, {
      defaults: {
        gatewayUrl: gateway.httpUrl,
        tls: { ca: readFileSync(gateway.certFile), insecureDev: false },
        relayControl: relayControlOf(gateway),
        stack: simulatorLoadStack({ turns: { messageChars: 32, chunkDelayMs: 2, toolCalls: 0, reasoningChars: 0 } }),
        origin: ORIGIN,
      },
      start: startLoad,
    });
    const server = await startSimulatorControlServer(control, { address: '127.0.0.1:0', credential: CONTROL_CREDENTIAL, logger: false });
    const client = new simulatorControlV1GrpcJs.SimulatorControlClient(server.address, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${CONTROL_CREDENTIAL}`);
    const unary = <Req, Res>(method: (r: Req, m: Metadata, cb: (e: ServiceError | null, res: Res) => void) => unknown, request: Req) =>
      new Promise<Res>((resolve, reject) => method.call(client, request, metadata, (error, response) => (error ? reject(error) : resolve(response))));
    try {
      const started = await unary<simulatorControlV1GrpcJs.StartLoadRequest, simulatorControlV1GrpcJs.StartLoadResponse>(client.startLoad, {
        companions: 1,
        browsers: 2,
        durationSeconds: 0,
        turnIntervalMs: 10,
        wireVersion: '1.1',
      });
      expect(started.workspaceIds).toHaveLength(1);
      await waitUntil(
        async () => {
          const stats = await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client.getStats, {});
          return stats.load?.state === simulatorControlV1.LoadRunState.RUNNING && (stats.load.report?.framesDelivered ?? 0) > 0;
        },
        { timeoutMs: 30_000, what: 'frames to be delivered' },
      );
      const stopped = await unary<simulatorControlV1GrpcJs.StopLoadRequest, simulatorControlV1GrpcJs.StopLoadResponse>(client.stopLoad, {});
      expect(stopped.load?.state).toBe(simulatorControlV1.LoadRunState.STOPPED);
      expect(stopped.load?.report).toMatchObject({ companions: 1, browsers: 2, errors: 0 });
      expect(stopped.load?.report?.framesDelivered).toBeGreaterThan(0);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('runs as a process (nx serve\'s command) until SIGTERM, then closes cleanly', async () => {
    const processDir = mkdtempSync(join(tmpdir(), 'sim-e2e-process-'));
    try {
      const workspace = await provisioner.createWorkspace('process e2e');
      const child = spawn(process.execPath, ['--import', 'tsx', 'apps/companion-simulator/src/main.ts', 'run'], {
        cwd: join(__dirname, '..', '..', '..'),
        env: {
          PATH: process.env['PATH'] ?? '',
          TSX_TSCONFIG_PATH: 'tsconfig.base.json',
          RELAY_GATEWAY_URL: gateway.httpUrl,
          RELAY_GATEWAY_CA_FILE: gateway.certFile,
          SIMULATOR_CREDENTIAL_FILE: join(processDir, 'device.json'),
          SIMULATOR_PAIRING_CODE: await provisioner.createPairingCode(workspace),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await waitUntil(() => stdout.includes(`of workspace ${workspace} connecting`) || child.exitCode !== null, { timeoutMs: 60_000, what: 'the simulator to start' });
      const client = new RelayClient({
        descriptor: () => provisioner.createBrowserSession(workspace, ORIGIN, ['1.1']),
        createSocket: (url) => new WebSocket(url, { origin: ORIGIN, ca: readFileSync(gateway.certFile) }) as unknown as WebSocketLike,
      });
      try {
        await client.connect();
        await waitUntil(() => client.workspaceStatus === 'online', { timeoutMs: 30_000, what: 'the workspace to be online' });
        const offline = new Promise<void>((resolve) => client.on('workspace', (change) => (change.status === 'offline' ? resolve() : undefined)));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        await offline;
      } finally {
        client.close();
      }
      expect(stdout).toContain('companion transport closed: stopped');
      expect(stderr).toBe('');
    } finally {
      rmSync(processDir, { recursive: true, force: true });
    }
  });
});

/**
 * RelayControl over TLS as the simulator's configuration reads it (the platform's gRPC client rule): the
 * gateway's certificate trusted through RELAY_GATEWAY_CA_FILE, TLS asked for on loopback.
 */
function relayControlOf(gateway: GatewayProcess): GrpcClientTarget {
  const env = {
    RELAY_GATEWAY_URL: gateway.httpUrl,
    RELAY_GATEWAY_CA_FILE: gateway.certFile,
    RELAY_CONTROL_ADDRESS: gateway.grpcAddress,
    RELAY_CONTROL_CREDENTIAL: gateway.serviceCredential,
    RELAY_CONTROL_TLS: 'true',
  };
  return loadSimulatorConfig(env, 'load').relayControl as GrpcClientTarget;
}
