/**
 * The platform as `npm start` runs it, for the console's browser suite: one `trustmesh dev` on a temporary
 * data directory with free ports, what it prints read back (the console's URL and password first, the relay's
 * development certificate, SimulatorControl's address and credential, the printed one-liners), a second
 * companion simulator paired from the page, SimulatorControl over gRPC, and stopping everything, leftovers
 * included, as `apps/cli/test/trustmesh-dev.e2e.spec.ts` does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { simulatorControlV1GrpcJs } from '@trustmesh/contracts';
import { waitUntil } from '@trustmesh/platform-testing';

export const ROOT = join(__dirname, '..', '..', '..', '..');

export interface Process {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

function track(child: ChildProcess): Process {
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** What `npm start` printed that the suite uses. */
export interface Printed {
  consoleUrl: string;
  password: string;
  certFile: string;
  /** The URL the gateway listens on (the simulator's RELAY_GATEWAY_URL). */
  relayUrl: string;
  /** The relay's public base URL, the one the console's descriptors name. */
  relayPublicUrl: string;
  relayControlCredential: string;
  shieldGrpc: string;
  shieldCredential: string;
  simulatorControl: { address: string; credential: string };
  publishCardLine: string;
}

export function field(text: string, pattern: RegExp): string {
  const match = pattern.exec(text)?.[1];
  if (match === undefined) throw new Error(`not printed: ${pattern}`);
  return match;
}

/**
 * `npm start --silent` on `dataDir` with every port free. `extraEnv` is for the relay's frame retention
 * (see the suite), nothing else.
 */
export function startPlatform(dataDir: string, extraEnv: Record<string, string>): Process {
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? dataDir,
    TRUSTMESH_DATA_DIR: dataDir,
    RELAY_HTTP_PORT: '0',
    RELAY_GRPC_PORT: '0',
    SHIELD_HTTP_PORT: '0',
    SHIELD_GRPC_PORT: '0',
    REGISTRY_HTTP_PORT: '0',
    REGISTRY_GRPC_PORT: '0',
    CONSOLE_HTTP_PORT: '0',
    SIMULATOR_CONTROL_ADDRESS: '127.0.0.1:0',
    ...extraEnv,
  };
  return track(spawn('npm', ['start', '--silent'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

export async function printedBy(platform: Process): Promise<Printed> {
  await waitUntil(() => platform.output.stdout.includes('npx trustmesh cards search') || platform.child.exitCode !== null, { timeoutMs: 300_000, intervalMs: 200, what: 'npm start to print how to connect' });
  if (platform.child.exitCode !== null) throw new Error(`npm start exited ${platform.child.exitCode}: ${platform.output.stderr.slice(0, 2000)}`);
  const out = platform.output.stdout;
  return {
    consoleUrl: field(out, /^Trustmesh console: (http:\/\/localhost:\d+)$/m),
    password: field(out, /Sign in as "developer" with password (tmpw_[A-Za-z0-9_-]+) /),
    certFile: field(out, /Development certificate: +(\S+)/),
    relayPublicUrl: field(out, /Relay base URL \(HTTPS\/WSS\): (\S+)/),
    relayUrl: field(out, /Relay base URL \(HTTPS\/WSS\): \S+ +\(listening on (\S+)\)/),
    relayControlCredential: field(out, /export RELAY_CONTROL_CREDENTIAL=(tmsc_[A-Za-z0-9_-]+)/),
    shieldGrpc: field(out, /Shield gRPC: +(\S+)/),
    shieldCredential: field(out, /^ +export SHIELD_CREDENTIAL=(tmso_[A-Za-z0-9_-]+) /m),
    simulatorControl: { address: field(out, /SimulatorControl: +(127\.0\.0\.1:\d+) /), credential: field(out, /^ +export SIMULATOR_CONTROL_CREDENTIAL=(\S+) /m) },
    publishCardLine: field(out, /^ +npx trustmesh (relay publish-card .*)$/m),
  };
}

/** The apps `npm start` started (and a second simulator): their pids, so none outlives a failed suite. */
export function childPids(text: string): number[] {
  return [...text.matchAll(/starting (?:relay-gateway|shield-analyzer|card-registry|console|companion-simulator) \(pid (\d+)\)/g)].map((match) => Number(match[1]));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, then the exit; after a failure, SIGKILL for any app the launcher could not stop. */
export async function stopPlatform(platform: Process | undefined): Promise<void> {
  if (!platform) return;
  if (platform.child.exitCode === null) platform.child.kill('SIGTERM');
  await platform.exited;
  const pids = childPids(platform.output.stdout);
  await waitUntil(() => pids.every((pid) => !alive(pid)), { timeoutMs: 60_000, what: 'the apps to exit' }).catch(() => {
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
  });
}

/**
 * Chromium's `--ignore-certificate-errors-spki-list` entry for the relay's development certificate: the
 * base64 SHA-256 of its SubjectPublicKeyInfo. Only this key is trusted, nothing else is waved through.
 */
export function spkiPin(certFile: string): string {
  const spki = new X509Certificate(readFileSync(certFile)).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/** A printed `npx trustmesh …` line run as printed (this checkout's bin for npx), with `env` as the exports. */
export function runPrinted(line: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [join(ROOT, 'bin', 'trustmesh.js'), ...line.split(/\s+/)], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });
}

/**
 * A second companion simulator (`main.ts run`) with the environment `trustmesh dev` gives its own: the
 * gateway and its certificate, the Shield, its own credential file, SimulatorControl on a free port with its
 * own credential, and the pairing code the page showed.
 */
export function startSimulator(printed: Printed, options: { credentialFile: string; pairingCode: string; controlCredential: string }): Process {
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.base.json'),
    RELAY_GATEWAY_URL: printed.relayUrl,
    RELAY_GATEWAY_CA_FILE: printed.certFile,
    SIMULATOR_CREDENTIAL_FILE: options.credentialFile,
    SIMULATOR_PAIRING_CODE: options.pairingCode,
    SIMULATOR_SHIELD_ADDRESS: printed.shieldGrpc,
    SIMULATOR_SHIELD_CREDENTIAL: printed.shieldCredential,
    SIMULATOR_CONTROL_ADDRESS: '127.0.0.1:0',
    SIMULATOR_CONTROL_CREDENTIAL: options.controlCredential,
  };
  return track(spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps', 'companion-simulator', 'src', 'main.ts'), 'run'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

export async function stopProcess(running: Process | undefined): Promise<void> {
  if (!running) return;
  if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGTERM');
  const exited = await Promise.race([running.exited, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 30_000).unref())]);
  if (exited === 'late') running.child.kill('SIGKILL');
}

/** SimulatorControl with its bearer credential: the calls the suite makes, as promises. */
export class SimulatorControl {
  private readonly client: simulatorControlV1GrpcJs.SimulatorControlClient;
  constructor(
    address: string,
    private readonly credential: string,
  ) {
    this.client = new simulatorControlV1GrpcJs.SimulatorControlClient(address, credentials.createInsecure());
  }

  private call<Req, Res>(method: (request: Req, metadata: Metadata, callback: (error: ServiceError | null, response: Res) => void) => unknown, request: Req): Promise<Res> {
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${this.credential}`);
    return new Promise((resolve, reject) => method.call(this.client, request, metadata, (error, response) => (error ? reject(error) : resolve(response))));
  }

  stats(): Promise<simulatorControlV1GrpcJs.GetStatsResponse> {
    return this.call(this.client.getStats, {});
  }

  startScenario(document: string): Promise<simulatorControlV1GrpcJs.StartScenarioResponse> {
    return this.call(this.client.startScenario, { document, format: 'json' });
  }

  disconnect(reconnectAfterMs: number): Promise<simulatorControlV1GrpcJs.DisconnectResponse> {
    return this.call(this.client.disconnect, { reconnectAfterMs });
  }

  close(): void {
    this.client.close();
  }
}

/**
 * A TCP hop between the browser and the relay (Chromium maps the relay's host and port to it), so the suite
 * can cut the browser's network the way a real outage does: `sever()` destroys every open connection (the
 * TLS session and its WebSocket die mid-stream) and refuses new ones until `restore()`. Chromium's offline
 * emulation is no substitute: it leaves an open WebSocket running.
 */
export class SeverableHop {
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  private readonly server: Server = createServer((inbound) => this.forward(inbound));
  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<SeverableHop> {
    const hop = new SeverableHop(target);
    await new Promise<void>((resolve) => hop.server.listen(0, '127.0.0.1', () => resolve()));
    return hop;
  }

  private forward(inbound: Socket): void {
    if (this.refusing) {
      inbound.destroy();
      return;
    }
    const outbound = connect(this.target.port, this.target.host);
    for (const socket of [inbound, outbound]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  sever(): void {
    this.refusing = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    this.sever();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
