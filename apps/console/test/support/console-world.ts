/**
 * What the console's e2e suites run against: a real relay gateway (its own entry point, embedded PGlite,
 * gRPC on loopback with a service credential of the test's own), a real Shield analyzer and card registry (their
 * process scripts, accepting the console's delegated credential), accounts made with the real CLI
 * (`trustmesh console account create`, password on stdin), then the console as its own process on embedded
 * PGlite, pointed at the gateway's RelayControl, with a built page of the test's own. `ConsoleBrowser` is a
 * cookie-keeping HTTP client that sends what a browser's fetch sends (Origin, the CSRF header).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createSeededDataDir } from '@trustmesh/platform-database/testing';
import { freeLoopbackPort, startServiceChild, waitUntil, type ServiceChild } from '@trustmesh/platform-testing';

export const ROOT = join(__dirname, '..', '..', '..', '..');
const BIN = join(ROOT, 'bin', 'trustmesh.js');

export interface RelayGatewayChild {
  grpc: string;
  http: string;
  dataDir: string;
  /** Every line the gateway wrote. */
  output(): string;
  stop(): Promise<void>;
}

/** The relay gateway's own entry point (`nx serve relay-gateway`), on a data directory of its own. */
export async function startRelayGateway(credential: string): Promise<RelayGatewayChild> {
  const seeded = await createSeededDataDir('console-relay');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps', 'relay-gateway', 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.base.json'),
      TRUSTMESH_DATA_DIR: seeded.dataDir,
      RELAY_HTTP_PORT: '0',
      RELAY_GRPC_PORT: '0',
      RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(credential).digest('hex'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let endpoints: { grpc: string; http: string } | null = null;
  await waitUntil(
    () => {
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed['msg'] === 'relay gateway listening') endpoints = { grpc: String(parsed['grpc']), http: String(parsed['http']) };
      }
      if (child.exitCode !== null) throw new Error(`the relay gateway exited: ${output.slice(-2000)}`);
      return endpoints !== null;
    },
    { timeoutMs: 120_000, what: 'the relay gateway to listen' },
  );
  const found = endpoints as unknown as { grpc: string; http: string };
  return {
    ...found,
    dataDir: seeded.dataDir,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await seeded.remove();
    },
  };
}

export interface UpstreamChild {
  /** gRPC `host:port`. */
  grpc: string;
  /** `http://host:port` of its operator listener (`/readyz`, `/metrics`). */
  operatorUrl: string;
  stop(): Promise<void>;
}

/** SHIELD_SERVICE_CREDENTIALS / REGISTRY_SERVICE_CREDENTIALS: the console's credential as its digest. */
const delegated = (credential: string) => `console:${createHash('sha256').update(credential).digest('hex')}`;

/**
 * An upstream app as its own process (the app's own process script, spawned by path: an app is not imported),
 * on a seeded data directory of its own, with its operator listener on a free port.
 */
async function startUpstream(script: string, dataDirName: string, env: (dataDir: string) => Record<string, string>): Promise<UpstreamChild> {
  const seeded = await createSeededDataDir(dataDirName);
  const child = await startServiceChild<{ grpcAddress: string; operatorUrl: string | null }>(join(ROOT, script), { workspaceRoot: ROOT, env: env(seeded.dataDir) });
  return {
    grpc: child.ready.grpcAddress,
    operatorUrl: child.ready.operatorUrl as string,
    stop: async () => {
      await child.stop();
      await seeded.remove();
    },
  };
}

/** The Shield analyzer (rules only, no model) accepting the console's delegated credential. */
export function startShieldAnalyzer(credential: string): Promise<UpstreamChild> {
  return startUpstream('apps/shield-analyzer/test/support/shield.process.ts', 'console-shield', (dataDir) => ({
    TRUSTMESH_DATA_DIR: dataDir,
    SHIELD_HTTP_PORT: '0',
    SHIELD_GRPC_PORT: '0',
    SHIELD_OPERATOR_PORT: '0',
    SHIELD_MODEL_PROVIDER: 'none',
    SHIELD_SERVICE_CREDENTIALS: delegated(credential),
  }));
}

/**
 * The card registry accepting the console's delegated credential, trusting it as the proxy of each person's
 * address, its DNS ownership proofs answered by `dnsServer` (a test DNS server on loopback).
 */
export async function startCardRegistry(credential: string, dnsServer: string): Promise<UpstreamChild> {
  const httpsPort = String(await freeLoopbackPort());
  return startUpstream('apps/card-registry/test/support/registry.process.ts', 'console-registry', (dataDir) => ({
    TRUSTMESH_DATA_DIR: dataDir,
    REGISTRY_HTTP_PORT: '0',
    REGISTRY_GRPC_PORT: '0',
    REGISTRY_OPERATOR_PORT: '0',
    REGISTRY_TRUST_TASK_INTERVAL_MS: '0',
    REGISTRY_SERVICE_CREDENTIALS: delegated(credential),
    REGISTRY_TRUSTED_PROXIES: '127.0.0.1',
    REGISTRY_TEST_ONLY_DNS_SERVERS: dnsServer,
    REGISTRY_TEST_ONLY_ADMIT_LOOPBACK: 'true',
    REGISTRY_TEST_ONLY_HTTPS_PORT: httpsPort,
  }));
}

/** `trustmesh console account ...` as an operator runs it, the password piped on stdin. */
export function trustmeshConsoleAccount(args: readonly string[], dataDir: string, stdin = '') {
  const run = spawnSync(process.execPath, [BIN, 'console', 'account', ...args], {
    cwd: ROOT,
    input: stdin,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env['PATH'] ?? '', TRUSTMESH_DATA_DIR: dataDir },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A data directory for a console: `<dir>/console` already holds an initialised cluster. */
export async function createConsoleDataDir(): Promise<{ dataDir: string; remove(): Promise<void> }> {
  const parent = await mkdtemp(join(tmpdir(), 'trustmesh-console-'));
  const seeded = await createSeededDataDir('console');
  await rename(seeded.dataDir, join(parent, 'console'));
  return { dataDir: parent, remove: () => rm(parent, { recursive: true, force: true }) };
}

/** A built page as Vite lays one out: index.html and a hashed asset. */
export async function createWebDir(): Promise<{ dir: string; asset: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'trustmesh-console-web-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>Trustmesh console</title><div id="root"></div>');
  const asset = '/assets/index-Bx7k2m9Q.js';
  await writeFile(join(dir, asset), 'console.log("page");');
  return { dir, asset, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface ConsoleChild {
  child: ServiceChild<{ httpUrl: string; publicOrigin: string; operatorUrl: string | null }>;
  logs: string[];
}

export async function startConsoleProcess(env: Record<string, string>): Promise<ConsoleChild> {
  const logs: string[] = [];
  const child = await startServiceChild<{ httpUrl: string; publicOrigin: string; operatorUrl: string | null }>(join(__dirname, 'console.process.ts'), {
    workspaceRoot: ROOT,
    env,
    onStderrLine: (line) => logs.push(line),
  });
  return { child, logs };
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface SendOptions {
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Send the session's CSRF token (default true once signed in). */
  csrf?: boolean;
  /** The Origin header (default: the console's own; null: none). */
  origin?: string | null;
}

/** A browser's view of the console: its session cookie, its device cookie, its CSRF token, its Origin. */
export class ConsoleBrowser {
  cookie: string | null = null;
  /** `tm_console_device=…`, sent back on the session route only (its cookie's Path), as a browser does. */
  deviceCookie: string | null = null;
  csrfToken: string | null = null;

  constructor(
    readonly baseUrl: string,
    readonly origin: string,
  ) {}

  async signIn(username: string, password: string): Promise<Reply> {
    const reply = await this.send('POST', '/api/v1/session', { body: JSON.stringify({ username, password }), headers: { 'content-type': 'application/json' } });
    if (reply.status === 200) this.csrfToken = (reply.json as { csrfToken: string }).csrfToken;
    return reply;
  }

  json(method: string, path: string, body: unknown, options: SendOptions = {}): Promise<Reply> {
    return this.send(method, path, { ...options, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...options.headers } });
  }

  send(method: string, path: string, options: SendOptions = {}): Promise<Reply> {
    const url = new URL(path, this.baseUrl);
    const headers: Record<string, string> = { ...options.headers };
    const cookies = [this.cookie, path.split('?')[0] === '/api/v1/session' ? this.deviceCookie : null].filter((cookie) => cookie !== null);
    if (cookies.length > 0) headers['cookie'] = cookies.join('; ');
    const origin = options.origin === undefined ? this.origin : options.origin;
    if (origin !== null && method !== 'GET') headers['origin'] = origin;
    if ((options.csrf ?? true) && this.csrfToken && method !== 'GET') headers['x-csrf-token'] = this.csrfToken;
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    return new Promise((resolve, reject) => {
      // `path` is sent as written (a traversal attempt stays one), not normalised by URL. A connection of its own
      // (`agent: false`): Node's global agent keeps sockets alive, and one reused just as the console's idle timeout
      // (5 s) closes it fails with "socket hang up", which suites that pause for the CLI between requests hit.
      const request = httpRequest({ host: url.hostname, port: url.port, path, method, headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const setCookie = response.headers['set-cookie'];
          for (const value of setCookie ?? []) {
            const pair = value.split(';')[0] ?? '';
            if (pair.startsWith('tm_console_device=')) this.deviceCookie = pair;
            else this.cookie = pair.endsWith('=') ? null : pair;
          }
          let json: unknown = undefined;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
      });
      request.on('error', reject);
      if (options.body !== undefined) request.write(options.body);
      request.end();
    });
  }
}

export const randomCredential = () => `tmsc_${randomBytes(32).toString('base64url')}`;
