/**
 * Issue 12's contract for every app, exactly as the Dockerfiles run it (tools/bundle/README.md):
 *
 *   npx nx build <app>                          -> dist/apps/<app>/ (main.js, migrate.js, package.json, lockfile, assets)
 *   npm ci --omit=dev                           in a copy of that folder outside the repository
 *   node migrate.js                             against a fresh Postgres database
 *   node main.js                                configured by environment variables only
 *
 * then `/readyz` answers 200 on the operator port, gRPC health reports SERVING (Watch and Check, per service
 * and overall) and reflection lists the app's services, and SIGTERM stops the app cleanly (watchers hear
 * NOT_SERVING first). The companion simulator, which has no database, enrolls with the bundled gateway. The
 * console, which serves no gRPC, serves its page from the bundle and creates a workspace through the bundled
 * gateway for an account made by the bundle's `console.js`.
 *
 * The five apps (and the console's page, console-web) are built once, by one `nx run-many`, without their
 * `generate` dependencies: the suite runs
 * beside other projects' tests, which read the generated clients those tasks would rewrite. This project's
 * `test` target depends on those `generate` tasks instead, so the run that starts it generated them first.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as grpc from '@grpc/grpc-js';

import { callUnary, relayControlV1GrpcJs } from '@trustmesh/contracts';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { freeLoopbackPort, grpcHealthClient, MOCK_CLUSTER_SESSION, useKafkaCluster, waitUntil, type GrpcHealthClient, type HealthWatch } from '@trustmesh/platform-testing';

const ROOT = join(__dirname, '..', '..');
const APPS = ['relay-gateway', 'shield-analyzer', 'card-registry', 'companion-simulator', 'console'] as const;
type App = (typeof APPS)[number];

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`)) : resolve(stdout),
    );
  });
}


/** Nothing from this process's environment but PATH: the bundle is configured by what a deployment sets. */
function deploymentEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env };
}

interface Started {
  readonly child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startBundle(folder: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['main.js', ...args], { cwd: folder, env: deploymentEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

const running = new Set<Started>();

async function readyz(operatorPort: number): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${operatorPort}/readyz`)).status;
  } catch {
    return 0;
  }
}

async function waitReady(app: Started, operatorPort: number, what: string): Promise<void> {
  await waitUntil(async () => app.child.exitCode !== null || (await readyz(operatorPort)) === 200, { timeoutMs: 120_000, intervalMs: 250, what: `${what} /readyz 200` });
  if (app.child.exitCode !== null) throw new Error(`${what} exited with ${app.child.exitCode}:\n${app.output()}`);
}

/**
 * What a user of the running bundle notices of its gRPC port: health SERVING overall and per service once
 * ready, NOT_FOUND for a service it does not have, reflection listing its services. Returns the overall
 * Watch stream, still open, so that the stop can be watched.
 */
interface WatchedPort {
  readonly client: GrpcHealthClient;
  readonly overall: HealthWatch;
}

async function expectGrpcIntrospection(address: string, services: string[]): Promise<WatchedPort> {
  const client = grpcHealthClient(address);
  const overall = client.watch('');
  await overall.next('SERVING');
  for (const service of ['', ...services]) await expect(client.check(service)).resolves.toBe('SERVING');
  await expect(client.check('trustmesh.no.v1.Such')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  await expect(client.listServices()).resolves.toEqual([...services, 'grpc.health.v1.Health'].sort());
  return { client, overall };
}

/** SIGTERM: the overall health turns NOT_SERVING for watchers, then the process exits 0. */
async function expectCleanStop(app: Started, port: WatchedPort): Promise<void> {
  app.child.kill('SIGTERM');
  await port.overall.next('NOT_SERVING');
  port.overall.cancel();
  port.client.close();
  const exit = await app.exited;
  running.delete(app);
  expect({ exit, output: exit.code === 0 ? '' : app.output() }).toEqual({ exit: { code: 0, signal: null }, output: '' });
}

describe('nx build <app>: self-contained bundles', () => {
  const kafka = useKafkaCluster();
  const folders = new Map<App, string>();
  const databases: TestPostgresDatabase[] = [];
  let scratch = '';

  beforeAll(async () => {
    // console-web writes the page into the console's bundle (dist/apps/console/web), a task dependency the
    // flag leaves out: it is named here.
    await run(process.execPath, [join(ROOT, 'node_modules', 'nx', 'dist', 'bin', 'nx.js'), 'run-many', '-t', 'build', '-p', [...APPS, 'console-web'].join(','), '--exclude-task-dependencies', '--output-style=static'], {
      cwd: ROOT,
      env: { ...process.env, NX_DAEMON: 'false' },
      timeoutMs: 300_000,
    });
    // Outside the repository: nothing of the workspace's node_modules can be found from there.
    scratch = await mkdtemp(join(tmpdir(), 'trustmesh-bundles-'));
    for (const app of APPS) {
      const folder = join(scratch, app);
      await cp(join(ROOT, 'dist', 'apps', app), folder, { recursive: true });
      folders.set(app, folder);
    }
    // One install at a time: npm is mostly I/O on the shared cache, and two cores are shared.
    for (const app of APPS) {
      await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: folders.get(app) as string, timeoutMs: 240_000 });
    }
  }, 900_000);

  afterEach(async () => {
    for (const app of running) {
      app.child.kill('SIGKILL');
      await app.exited;
    }
    running.clear();
  });

  afterAll(async () => {
    for (const database of databases) await database.drop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  async function migratedDatabase(app: App): Promise<string> {
    const database = await createTestPostgresDatabase(`bundle ${app}`);
    databases.push(database);
    const report = await run(process.execPath, ['migrate.js'], { cwd: folders.get(app) as string, env: deploymentEnv({ DATABASE_URL: database.url }), timeoutMs: 60_000 });
    expect(report).toMatch(new RegExp(`^${app}: \\d+ applied, 0 already applied$`, 'm'));
    expect(report).toMatch(/^platform-event-store: \d+ applied, 0 already applied$/m);
    return database.url;
  }

  function busEnv(): Record<string, string> {
    return { TRUSTMESH_BUS: 'kafka', KAFKA_BROKERS: kafka.brokers.join(','), ...MOCK_CLUSTER_SESSION };
  }

  it('each bundle ships its migrations: `node migrate.js` applies them to a fresh database, and a rerun applies none', async () => {
    const url = await migratedDatabase('shield-analyzer');
    const rerun = await run(process.execPath, ['migrate.js'], { cwd: folders.get('shield-analyzer') as string, env: deploymentEnv({ DATABASE_URL: url }), timeoutMs: 60_000 });
    expect(rerun).toMatch(/^shield-analyzer: 0 applied, \d+ already applied$/m);
    const status = await run(process.execPath, ['migrate.js', 'status'], { cwd: folders.get('shield-analyzer') as string, env: deploymentEnv({ DATABASE_URL: url }), timeoutMs: 60_000 });
    expect(status).not.toMatch(/^pending/m);
  });

  it('shield-analyzer: starts with plain node on Postgres and Kafka, ready, gRPC health and reflection, clean stop', async () => {
    const [http, grpcPort, operator] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
    const app = startBundle(folders.get('shield-analyzer') as string, [], {
      DATABASE_URL: await migratedDatabase('shield-analyzer'),
      ...busEnv(),
      SHIELD_HTTP_HOST: '127.0.0.1',
      SHIELD_HTTP_PORT: String(http),
      SHIELD_GRPC_HOST: '127.0.0.1',
      SHIELD_GRPC_PORT: String(grpcPort),
      SHIELD_OPERATOR_PORT: String(operator),
      SHIELD_OPERATOR_CREDENTIALS: `operator:${createHash('sha256').update('shield-operator-credential').digest('hex')}`,
      SHIELD_MODEL_PROVIDER: 'none',
    });
    running.add(app);
    await waitReady(app, operator, 'shield-analyzer');
    const watch = await expectGrpcIntrospection(`127.0.0.1:${grpcPort}`, ['trustmesh.shield.v1.ShieldAnalyzer']);
    await expectCleanStop(app, watch);
  });

  it('card-registry: starts with plain node on Postgres and Kafka, ready, gRPC health and reflection, clean stop', async () => {
    const [http, grpcPort, operator] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
    const app = startBundle(folders.get('card-registry') as string, [], {
      DATABASE_URL: await migratedDatabase('card-registry'),
      ...busEnv(),
      REGISTRY_HTTP_HOST: '127.0.0.1',
      REGISTRY_HTTP_PORT: String(http),
      REGISTRY_GRPC_HOST: '127.0.0.1',
      REGISTRY_GRPC_PORT: String(grpcPort),
      REGISTRY_OPERATOR_PORT: String(operator),
      REGISTRY_OPERATOR_CREDENTIALS: `operator:${createHash('sha256').update('registry-operator-credential').digest('hex')}`,
    });
    running.add(app);
    await waitReady(app, operator, 'card-registry');
    const watch = await expectGrpcIntrospection(`127.0.0.1:${grpcPort}`, ['trustmesh.registry.v1.CardRegistry', 'trustmesh.registry.v1.CardRegistryOperator']);
    await expectCleanStop(app, watch);
  });

  /** The gateway bundle on a fresh database, ready, with `serviceCredential` accepted on RelayControl. */
  async function startGateway(serviceCredential: string): Promise<{ gateway: Started; http: number; grpcPort: number }> {
    const [http, grpcPort, operator] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
    const gateway = startBundle(folders.get('relay-gateway') as string, [], {
      DATABASE_URL: await migratedDatabase('relay-gateway'),
      ...busEnv(),
      RELAY_HTTP_HOST: '127.0.0.1',
      RELAY_HTTP_PORT: String(http),
      RELAY_GRPC_HOST: '127.0.0.1',
      RELAY_GRPC_PORT: String(grpcPort),
      RELAY_OPERATOR_PORT: String(operator),
      RELAY_PUBLIC_BASE_URL: 'https://relay.example.test',
      RELAY_TLS: 'terminated-by-proxy',
      RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(serviceCredential).digest('hex'),
    });
    running.add(gateway);
    await waitReady(gateway, operator, 'relay-gateway');
    return { gateway, http, grpcPort };
  }

  it('console: its migrations and account command, then its page from the bundle and a workspace through the bundled gateway, clean stop', async () => {
    const folder = folders.get('console') as string;
    const databaseUrl = await migratedDatabase('console');
    // The operator's account command of the image (`node console.js account …`), the password on stdin.
    const created = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['console.js', 'account', 'create', '--username', 'alice'], { cwd: folder, env: deploymentEnv({ DATABASE_URL: databaseUrl, ...busEnv() }), stdio: ['pipe', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.once('exit', (code) => resolve({ code, output }));
      child.stdin.end('a bundle test passphrase\n');
    });
    expect(created).toEqual({ code: 0, output: expect.stringMatching(/^created account alice \(/) });

    const serviceCredential = 'bundle-test-console-relay-credential';
    const { gateway, grpcPort } = await startGateway(serviceCredential);
    const [http, operator] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const origin = `http://localhost:${http}`;
    // No CONSOLE_WEB_DIR: the bundle serves the page built into it.
    const consoleApp = startBundle(folder, [], {
      DATABASE_URL: databaseUrl,
      ...busEnv(),
      CONSOLE_HTTP_HOST: '127.0.0.1',
      CONSOLE_HTTP_PORT: String(http),
      CONSOLE_OPERATOR_PORT: String(operator),
      CONSOLE_PUBLIC_ORIGIN: origin,
      CONSOLE_RELAY_CONTROL_ADDRESS: `127.0.0.1:${grpcPort}`,
      CONSOLE_RELAY_CONTROL_CREDENTIAL: serviceCredential,
    });
    running.add(consoleApp);
    await waitReady(consoleApp, operator, 'console');

    const base = `http://127.0.0.1:${http}`;
    const indexHtml = await readFile(join(folder, 'web', 'index.html'), 'utf8');
    for (const path of ['/', '/workspaces']) {
      const page = await fetch(`${base}${path}`);
      expect([path, page.status, page.headers.get('content-type'), await page.text()]).toEqual([path, 200, expect.stringContaining('text/html'), indexHtml]);
    }
    const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(indexHtml)?.[1] ?? '';
    expect(script).not.toBe('');
    const asset = await fetch(`${base}${script}`);
    expect([asset.status, asset.headers.get('cache-control')]).toEqual([200, expect.stringContaining('immutable')]);
    expect(await asset.text()).toBe(await readFile(join(folder, 'web', script.slice(1)), 'utf8'));

    // Sign in as the account console.js made, then create a workspace: RelayControl on the gateway bundle.
    const json = { 'content-type': 'application/json', origin };
    const signIn = await fetch(`${base}/api/v1/session`, { method: 'POST', headers: json, body: JSON.stringify({ username: 'alice', password: 'a bundle test passphrase' }) });
    expect(signIn.status).toBe(200);
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const workspace = await fetch(`${base}/api/v1/workspaces`, { method: 'POST', headers: { ...json, cookie, 'x-csrf-token': csrfToken }, body: JSON.stringify({ displayName: 'Bundle test' }) });
    expect([workspace.status, await workspace.json()]).toEqual([201, expect.objectContaining({ workspaceId: expect.stringMatching(/^[0-9a-f-]{36}$/), displayName: 'Bundle test' })]);

    for (const app of [consoleApp, gateway]) {
      app.child.kill('SIGTERM');
      const exit = await app.exited;
      running.delete(app);
      expect({ exit, output: exit.code === 0 ? '' : app.output() }).toEqual({ exit: { code: 0, signal: null }, output: '' });
    }
  });

  it('relay-gateway and companion-simulator: the gateway starts ready, and the simulator bundle enrolls with it and serves SimulatorControl', async () => {
    const serviceCredential = 'bundle-test-service-credential';
    const { gateway, http, grpcPort } = await startGateway(serviceCredential);
    const control = await freeLoopbackPort();
    const gatewayWatch = await expectGrpcIntrospection(`127.0.0.1:${grpcPort}`, ['trustmesh.platform.v1.ServiceInfo', 'trustmesh.relay.v1.RelayControl']);

    const relay = new relayControlV1GrpcJs.RelayControlClient(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${serviceCredential}`);
    const { workspace } = await callUnary(
      relay.createWorkspace.bind(relay),
      { requestId: '0b6f9f7e-3f0a-4a57-9d8a-2f1d0f6a1c11', ownerUserId: 'user-1', displayName: 'Bundle test', endToEndEncrypted: false },
      metadata,
      10_000,
    );
    const { pairingCode } = await callUnary(relay.createPairingCode.bind(relay), { workspaceId: workspace?.workspaceId ?? '', ttlSeconds: 0, requestedByUserId: 'user-1' }, metadata, 10_000);
    relay.close();

    const simulatorFolder = folders.get('companion-simulator') as string;
    const simulator = startBundle(simulatorFolder, ['run'], {
      RELAY_GATEWAY_URL: `http://127.0.0.1:${http}`,
      SIMULATOR_PAIRING_CODE: pairingCode,
      SIMULATOR_CREDENTIAL_FILE: join(simulatorFolder, 'device-credential.json'),
      SIMULATOR_CONTROL_ADDRESS: `127.0.0.1:${control}`,
      SIMULATOR_CONTROL_CREDENTIAL: 'bundle-test-control-credential',
    });
    running.add(simulator);
    await waitUntil(() => simulator.child.exitCode !== null || simulator.output().includes(`SimulatorControl on 127.0.0.1:${control}`), {
      timeoutMs: 60_000,
      what: 'the simulator serving SimulatorControl',
    });
    expect(simulator.child.exitCode).toBeNull();
    const simulatorWatch = await expectGrpcIntrospection(`127.0.0.1:${control}`, ['trustmesh.relay.v1.SimulatorControl']);
    await expectCleanStop(simulator, simulatorWatch);
    await expectCleanStop(gateway, gatewayWatch);
  });
});
