/**
 * `trustmesh dev [--origin ORIGIN]` (what `npm start` runs): the console, the relay gateway, a paired companion
 * simulator, the shield analyzer and the card registry (dev-card-registry.ts, dev-console.ts) on embedded
 * defaults, in the foreground, with what a person needs to connect printed once, the console's URL first.
 *
 * The apps run as child processes (an app never imports another): their own entry points (`nx serve`'s
 * commands) and the simulator's `run` command. The launcher
 *
 * 1. mints a development service credential (or takes `RELAY_CONTROL_CREDENTIAL`), a development shield
 *    operator credential (or takes `SHIELD_CREDENTIAL`) and the console's delegated credentials at the shield
 *    and the registry, and hands the apps only their SHA-256 (`RELAY_SERVICE_CREDENTIAL_SHA256`,
 *    `SHIELD_OPERATOR_CREDENTIALS=development:<sha256>`, `*_SERVICE_CREDENTIALS=console:<sha256>`): the
 *    plaintexts are printed once or given to the console's environment only, never written; meanwhile it
 *    builds the console's page when the build is missing or older than its sources;
 * 2. starts the card registry, then, once the registry listens, the shield (its own PGlite under
 *    `<data dir>/shield-analyzer`, or `DATABASE_URL`) following the registry's `registry.cards.v1` over the
 *    registry's gRPC EventFeed (dev-card-registry.ts: a feed credential per start, its digest to the registry,
 *    the plaintext to the shield's environment only); waits for the registry to be ready and onboards the
 *    gateway on it as a publisher of a development namespace (the publisher credential goes to the gateway in
 *    a 0600 file, never to the terminal); then starts the gateway (PGlite and the local bus under
 *    `TRUSTMESH_DATA_DIR`, self-signed development certificate) with the registry's address, reads its
 *    "listening" log line and certificate line, and waits for its `GET /readyz`;
 * 3. waits for the shield to be ready; creates the console's development account `developer` (or sets its
 *    password) with a password minted for this start, starts the console (its own PGlite under
 *    `<data dir>/console`) with the three apps' addresses, waits for its `/readyz` and signs in through its API;
 * 4. provisions through the console: on the first run a workspace of `developer` and a pairing code, which the
 *    simulator redeems (its device credential is stored 0600 under the data dir by the simulator itself); on
 *    later runs the stored device is reused if the console still has its workspace and the gateway still knows
 *    it (ListDevices), else it is forgotten (`unenroll`) and a new workspace is paired. The simulator consults
 *    the shield on counterparty requests (its gRPC address and the development operator credential, in the
 *    simulator's environment) and serves SimulatorControl with a minted credential (or
 *    `SIMULATOR_CONTROL_CREDENTIAL`), so a person can start a scenario;
 * 5. waits for the workspace to be online (GetWorkspaceStatus), mints a browser session descriptor bound to
 *    the origin, prints the connection details (first the console's URL, account and password; then the
 *    `trustmesh relay watch` line, which cannot be spent or expire as the single-use descriptor does; then the
 *    shield's and the registry's exports, addresses and first commands, and how the apps are wired with a line
 *    to try each flow), and stays in the foreground;
 * 6. on SIGINT/SIGTERM/SIGHUP, or when its parent process is gone (npm does not pass SIGTERM through its
 *    shell), stops the apps in reverse start order (SIGTERM, each shuts down in order), and exits 0; if any
 *    child dies on its own, stops the others and exits 1.
 *
 * Children's stdout (JSON logs, no secrets) goes to `<data dir>/logs/<app>.log`; their stderr also reaches
 * the terminal, prefixed.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { get as httpGet } from 'node:http';
import { join, relative, resolve } from 'node:path';

import { SecretText } from '@trustmesh/platform-config';
import { mintSecret, sha256Hex } from '@trustmesh/platform-credentials';

import { ChildApp, describeExit, ROOT } from './child-app';
import { onboardDevGateway, reachable, registryEnv, registryFeedWiring, registryLines, registryStartedOf, RegistryOnboardingError } from './dev-card-registry';
import {
  buildConsolePage,
  CONSOLE_MAIN,
  ConsoleApiSession,
  consoleEnv,
  consoleLines,
  consolePageStale,
  consoleStartedOf,
  ConsoleStartError,
  consoleWiring,
  CONSOLE_DEV_USERNAME,
  ensureDevAccount,
  withEntry,
} from './dev-console';

import { EXIT, UsageError, type CommandIo } from './command-io';
import { RelayControl, RelayControlError } from './relay-control.client';
import { DEFAULT_DEV_ORIGIN, DEFAULT_WIRE_VERSIONS } from './relay-session.command';

type Env = Readonly<Record<string, string | undefined>>;

const GATEWAY_MAIN = join(ROOT, 'apps', 'relay-gateway', 'src', 'main.ts');
const SIMULATOR_MAIN = join(ROOT, 'apps', 'companion-simulator', 'src', 'main.ts');
const SHIELD_MAIN = join(ROOT, 'apps', 'shield-analyzer', 'src', 'main.ts');
const REGISTRY_MAIN = join(ROOT, 'apps', 'card-registry', 'src', 'main.ts');
/** Where the simulator serves SimulatorControl unless SIMULATOR_CONTROL_ADDRESS says otherwise (compose's port too). */
const DEV_SIMULATOR_CONTROL_ADDRESS = '127.0.0.1:50081';
/** The shield's operator account for the development credential (the shield's own embedded default too). */
const SHIELD_DEV_ACCOUNT = 'development';
const START_TIMEOUT_MS = 180_000;
const ONLINE_TIMEOUT_MS = 90_000;
const DEV_USER = 'trustmesh-dev';

class Aborted extends Error {}

export interface DevOptions {
  origin: string;
}

export function parseDevArgs(args: readonly string[], env: Env): DevOptions {
  let origin = env['TRUSTMESH_DEV_ORIGIN'] ?? DEFAULT_DEV_ORIGIN;
  for (let i = 0; i < args.length; i += 1) {
    const flag = args[i];
    if (flag === '--origin') {
      const value = args[i + 1];
      if (!value || value.length > 2048) throw new UsageError('dev: --origin needs a value such as http://localhost:5173');
      origin = value;
      i += 1;
    } else {
      throw new UsageError(`dev: unknown option ${JSON.stringify((flag ?? '').slice(0, 64))}`);
    }
  }
  if (!/^https?:\/\/[^/\s?#]+$/.test(origin)) throw new UsageError('dev: --origin must be a serialized origin: scheme://host[:port], no path (e.g. http://localhost:5173)');
  return { origin };
}

export async function runDev(args: readonly string[], io: CommandIo, env: Env = process.env): Promise<number> {
  const options = parseDevArgs(args, env);
  const dataDir = resolve(env['TRUSTMESH_DATA_DIR'] ?? '.data');
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700); // private to the user even when an older version created it 0755
  const credentialFile = resolve(env['SIMULATOR_CREDENTIAL_FILE'] ?? join(dataDir, 'companion-simulator', 'device-credential.json'));
  const shown = (path: string) => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path) || '.');

  const givenCredential = env['RELAY_CONTROL_CREDENTIAL']?.trim();
  const serviceCredential = givenCredential || mintSecret('tmsc_');
  const digest = sha256Hex(serviceCredential);

  // The shield's development operator credential (account `development`): likewise handed over as a digest only.
  const givenShieldCredential = env['SHIELD_CREDENTIAL']?.trim();
  const shieldCredential = givenShieldCredential || mintSecret('tmso_');
  // The card registry's development operator credential, as the CLI's `cards` commands read it.
  const givenRegistryCredential = env['TRUSTMESH_REGISTRY_TOKEN']?.trim();
  const registryCredential = givenRegistryCredential || mintSecret('tmro_');
  // The console's delegated credentials at the shield and the registry, and its development account's password.
  const consoleCredentials = consoleWiring();
  // SimulatorControl's credential: the simulator gets it in its environment, a person from the one print.
  const givenSimulatorControlCredential = env['SIMULATOR_CONTROL_CREDENTIAL']?.trim();
  const simulatorControlCredential = givenSimulatorControlCredential || mintSecret('tmsim_');

  // Children get the platform variables (DATABASE_URL, TRUSTMESH_BUS, …) but never the plaintext credential.
  const baseEnv: Record<string, string | undefined> = { ...env, TRUSTMESH_DATA_DIR: dataDir, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.base.json') };
  delete baseEnv['RELAY_CONTROL_CREDENTIAL'];
  delete baseEnv['SIMULATOR_PAIRING_CODE'];
  delete baseEnv['SHIELD_CREDENTIAL'];
  delete baseEnv['TRUSTMESH_REGISTRY_TOKEN'];
  delete baseEnv['SIMULATOR_CONTROL_CREDENTIAL'];

  let stopSignal: string | null = null;
  const onSignal = (signal: string) => {
    if (stopSignal === null) io.stderr(`trustmesh dev: ${signal} received, stopping\n`);
    stopSignal ??= signal;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // `npm start` runs this under `sh -c`, and npm answers a SIGTERM by passing it to that shell, which dies
  // without passing it on: a launcher whose parent is gone stops as if it had been signalled.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => (process.ppid !== parent ? onSignal('parent exit') : undefined), 500);
  orphanWatch.unref();

  const children: ChildApp[] = [];
  let control: RelayControl | null = null;
  // Awaited however the start ends: a build left running would hold its lock after this process is gone.
  let pageBuild: Promise<{ code: number | null; output: string } | null> = Promise.resolve(null);
  const checkRunning = () => {
    if (stopSignal) throw new Aborted();
    for (const child of children) {
      if (!child.running) throw new Error(`${child.name} exited during start-up (${describeExit(child.exit)}); its log is ${shown(join(logDir, `${child.name}.log`))}`);
    }
  };
  const waitFor = async <T>(what: string, timeoutMs: number, probe: () => Promise<T | null> | T | null): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      checkRunning();
      const value = await probe();
      if (value !== null) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(150);
    }
  };

  // The terminal gets warnings and errors; info lines stay in the log file.
  const launch = (name: string, childArgs: string[], childEnv: Record<string, string | undefined>) =>
    new ChildApp({
      name,
      args: ['--import', 'tsx', ...childArgs],
      env: childEnv,
      logFile: join(logDir, `${name}.log`),
      onStderrLine: (line) => {
        if (line.trim() && !/^\{.*"level":"(debug|info)"/.test(line)) io.stderr(`[${name}] ${line}\n`);
      },
    });

  try {
    // 0. The console's page, built (Vite) while the apps start when it is missing or older than its sources.
    pageBuild = consolePageStale() ? (io.stdout('trustmesh dev: building the console\'s page (Vite)\n'), buildConsolePage()) : Promise.resolve(null);
    // 1. The card registry, then the shield analyzer once the registry's gRPC address is known (the shield follows
    //    its registry.cards.v1 there); the gateway once it is onboarded on the registry.
    const feed = registryFeedWiring(env);
    const registry = launch('card-registry', [REGISTRY_MAIN], {
      ...registryEnv(baseEnv, dataDir, registryCredential, feed),
      ...withEntry(baseEnv, 'REGISTRY_SERVICE_CREDENTIALS', consoleCredentials.registryEntry),
      // The console, on loopback, passes each person's address on (x-forwarded-for), so the registry's
      // per-person limits apply to people rather than to the console as one client.
      ...withEntry(baseEnv, 'REGISTRY_TRUSTED_PROXIES', '127.0.0.1'),
    });
    children.push(registry);
    io.stdout(`trustmesh dev: starting card-registry (pid ${registry.process.pid}); data in ${shown(dataDir)}, logs in ${shown(logDir)}\n`);
    const registryStarted = await waitFor('the card registry to listen', START_TIMEOUT_MS, () => registryStartedOf(registry.logRecord('card registry listening')));
    const shield = launch('shield-analyzer', [SHIELD_MAIN], {
      ...shieldEnv(baseEnv, dataDir, shieldCredential),
      ...feed?.shieldEnv(registryStarted.grpcAddress),
      ...withEntry(baseEnv, 'SHIELD_SERVICE_CREDENTIALS', consoleCredentials.shieldEntry),
    });
    children.push(shield);
    io.stdout(`trustmesh dev: starting shield-analyzer (pid ${shield.process.pid})\n`);
    if (registryStarted.operatorUrl) {
      const readyz = `${registryStarted.operatorUrl}/readyz`;
      await waitFor('the card registry to be ready (GET /readyz)', START_TIMEOUT_MS, async () => ((await httpStatus(readyz, null)) === 200 ? true : null));
    }
    // A gateway the user pointed at a registry of their own keeps it.
    const cardsEnv = env['RELAY_REGISTRY_GRPC_ADDRESS'] ? {} : await onboardDevGateway(registryStarted, registryCredential, dataDir);
    const gateway = launch('relay-gateway', [GATEWAY_MAIN], { ...baseEnv, ...cardsEnv, RELAY_SERVICE_CREDENTIAL_SHA256: digest, RELAY_SERVICE_CREDENTIAL_SHA256_FILE: undefined });
    children.push(gateway);
    io.stdout(`trustmesh dev: starting relay-gateway (pid ${gateway.process.pid})\n`);
    const started = await waitFor('the relay gateway to listen', START_TIMEOUT_MS, () => {
      const listening = gateway.logRecord('relay gateway listening');
      if (!listening) return null;
      const http = String(listening['http']);
      const certLine = gateway.lines.map((line) => /^relay-gateway: development certificate (.+) \(SHA-256 ([0-9A-Fa-f:]+)\)$/.exec(line)).find(Boolean);
      const certFile = certLine?.[1] ?? env['RELAY_TLS_CERT_FILE'] ?? null;
      if (http.startsWith('https:') && !certFile) return null;
      return {
        httpUrl: http,
        grpcAddress: String(listening['grpc']),
        publicBaseUrl: String(listening['publicBaseUrl'] ?? http),
        // The gateway decides (server mode serves gRPC over TLS unless a proxy terminates it).
        grpcTls: typeof listening['grpcTls'] === 'boolean' ? listening['grpcTls'] : (env['RELAY_GRPC_TLS'] ?? '').toLowerCase() === 'true',
        operatorUrl: typeof listening['operator'] === 'string' ? listening['operator'] : null,
        certFile: http.startsWith('https:') ? certFile : null,
        fingerprint: certLine?.[2] ?? null,
      };
    });
    const ca = started.certFile ? readFileSync(started.certFile) : null;
    await waitFor('the relay gateway to be ready (GET /readyz)', START_TIMEOUT_MS, async () => ((await httpStatus(`${started.httpUrl}/readyz`, ca)) === 200 ? true : null));

    // 2. The shield analyzer: listening (its addresses), then ready (its operator port's /readyz); the simulator consults it.
    const shieldStarted = await waitFor('the shield analyzer to listen', START_TIMEOUT_MS, () => {
      const listening = shield.logRecord('shield analyzer listening');
      return listening ? { httpUrl: String(listening['http']), grpcAddress: String(listening['grpc']), operatorUrl: typeof listening['operator'] === 'string' ? listening['operator'] : null } : null;
    });
    if (shieldStarted.operatorUrl) {
      const readyz = `${shieldStarted.operatorUrl}/readyz`;
      await waitFor('the shield analyzer to be ready (GET /readyz)', START_TIMEOUT_MS, async () => ((await httpStatus(readyz, null)) === 200 ? true : null));
    }

    // 3. The console: its page, its development account (before it runs: embedded, its database is then its
    //    own), then the console itself, signed in to through its API as the page would.
    const built = await pageBuild;
    if (built && built.code !== 0) throw new ConsoleStartError(`the console's page did not build (npx nx build console-web): ${built.output.trim().split('\n').slice(-3).join(' ').slice(0, 500)}`);
    checkRunning();
    const consoleEnvironment = consoleEnv(
      baseEnv,
      dataDir,
      {
        relay: { grpcAddress: reachable(started.grpcAddress), grpcTls: started.grpcTls, certFile: started.certFile, publicBaseUrl: started.publicBaseUrl, operatorUrl: started.operatorUrl },
        shield: { grpcAddress: reachable(shieldStarted.grpcAddress), operatorUrl: shieldStarted.operatorUrl },
        registry: { grpcAddress: reachable(registryStarted.grpcAddress), operatorUrl: registryStarted.operatorUrl },
      },
      serviceCredential,
      consoleCredentials,
    );
    await ensureDevAccount(consoleEnvironment, consoleCredentials.password);
    const consoleApp = launch('console', [CONSOLE_MAIN], consoleEnvironment);
    children.push(consoleApp);
    io.stdout(`trustmesh dev: starting console (pid ${consoleApp.process.pid})\n`);
    const consoleStarted = await waitFor('the console to listen', START_TIMEOUT_MS, () => consoleStartedOf(consoleApp.logRecord('console listening')));
    if (consoleStarted.operatorUrl) {
      const readyz = `${consoleStarted.operatorUrl}/readyz`;
      await waitFor('the console to be ready (GET /readyz)', START_TIMEOUT_MS, async () => ((await httpStatus(readyz, null)) === 200 ? true : null));
    }
    const consoleApi = await ConsoleApiSession.signIn(consoleStarted.httpUrl, consoleStarted.origin, CONSOLE_DEV_USERNAME, consoleCredentials.password);

    // 4. Provisioning, and the simulator: the development workspace is the console account's, made through the
    //    console's API (which calls RelayControl); RelayControl directly for what a person's tools use.
    const grpcTls = started.grpcTls;
    // The embedded gateway on loopback, with the credential and certificate this command just made.
    control = new RelayControl({ address: started.grpcAddress, credential: new SecretText(serviceCredential), tls: grpcTls ? { ca } : null });
    const relayControl = control;
    const simulatorEnv = {
      ...baseEnv,
      RELAY_GATEWAY_URL: started.httpUrl,
      RELAY_GATEWAY_CA_FILE: started.certFile ?? undefined,
      SIMULATOR_CREDENTIAL_FILE: credentialFile,
      // A simulator the user pointed at a Shield of their own keeps it.
      ...(env['SIMULATOR_SHIELD_ADDRESS'] ? {} : { SIMULATOR_SHIELD_ADDRESS: reachable(shieldStarted.grpcAddress), SIMULATOR_SHIELD_CREDENTIAL: shieldCredential }),
      SIMULATOR_CONTROL_ADDRESS: env['SIMULATOR_CONTROL_ADDRESS'] ?? DEV_SIMULATOR_CONTROL_ADDRESS,
      SIMULATOR_CONTROL_CREDENTIAL: simulatorControlCredential,
    };
    let simulator: ChildApp | null = null;
    const runSimulator = (extra: Record<string, string>) => {
      simulator = launch('companion-simulator', [SIMULATOR_MAIN, 'run'], { ...simulatorEnv, ...extra });
      children.push(simulator);
      io.stdout(`trustmesh dev: starting companion-simulator (pid ${simulator.process.pid})\n`);
    };

    let stored = readStoredDevice(credentialFile);
    if (stored) {
      const owned = (await consoleApi.workspace(stored.workspaceId)) !== null;
      const known = owned ? await relayControl.hasDevice(stored.workspaceId, stored.deviceId) : false;
      if (known !== true) {
        const why = !owned ? `its workspace is not the console account "${CONSOLE_DEV_USERNAME}"'s` : known === null ? 'workspace unknown' : 'device revoked';
        io.stdout(`trustmesh dev: the stored simulator device ${stored.deviceId} is not usable (${why}); pairing a new one\n`);
        const unenroll = launch('companion-simulator', [SIMULATOR_MAIN, 'unenroll'], simulatorEnv);
        const result = await unenroll.exited;
        await unenroll.stop();
        if (result.code !== 0) throw new Error(`companion-simulator unenroll failed (${describeExit(result)})`);
        stored = null;
      }
    }
    let workspaceId: string;
    let deviceId: string | null;
    let reused: boolean;
    if (stored) {
      workspaceId = stored.workspaceId;
      deviceId = stored.deviceId;
      reused = true;
      runSimulator({});
    } else {
      workspaceId = await consoleApi.createWorkspace('Development workspace');
      const pairingCode = await consoleApi.pairingCode(workspaceId);
      deviceId = null;
      reused = false;
      runSimulator({ SIMULATOR_PAIRING_CODE: pairingCode });
    }
    const online = await waitFor(`workspace ${workspaceId} to be online`, ONLINE_TIMEOUT_MS, async () => {
      const device = await relayControl.onlineDevice(workspaceId);
      return device && (deviceId === null || device.deviceId === deviceId) ? device : null;
    });

    // The launcher's own sign-in is not the person's: it ends here.
    await consoleApi.signOut();

    const simulatorControlAddress = await waitFor('the simulator to serve SimulatorControl', START_TIMEOUT_MS, () =>
      simulator?.lines.map((line) => /^companion-simulator: SimulatorControl on (\S+)$/.exec(line)?.[1]).find(Boolean) ?? null,
    );

    // 5. A first browser session, and what a person needs: the console first.
    const descriptor = await relayControl.createBrowserSession(workspaceId, options.origin, DEFAULT_WIRE_VERSIONS, DEV_USER);
    const defaultAddress = started.grpcAddress === '127.0.0.1:50051';
    const controlFlags = [
      `--workspace ${workspaceId}`,
      `--origin ${options.origin}`,
      ...(defaultAddress ? [] : [`--relay-control-address ${started.grpcAddress}`]),
      ...(grpcTls && started.certFile ? [`--relay-control-ca ${started.certFile}`] : []),
    ];
    const sessionCommand = ['npx trustmesh relay session', ...controlFlags].join(' ');
    // The watch mints a descriptor per connection: unlike the printed one, it cannot be spent or expire.
    const watchCommand = ['npx trustmesh relay watch', ...controlFlags, ...(started.certFile ? [`--ca ${started.certFile}`] : []), '--say hello'].join(' ');
    const exportLine = `    export RELAY_CONTROL_CREDENTIAL=${serviceCredential}`;
    io.stdout(
      [
        '',
        ...consoleLines(consoleStarted, consoleCredentials.password, { httpUrl: started.publicBaseUrl, certFile: started.certFile }),
        '',
        'Trustmesh relay is running (Ctrl-C stops it).',
        '',
        '  First, watch the live stream (in another terminal, in this directory):',
        ...(givenCredential ? ['    (RELAY_CONTROL_CREDENTIAL: the one you set)'] : [`${exportLine}   (this run only, shown once, never stored)`]),
        `    ${watchCommand}`,
        '  It connects as a browser (a fresh session for each connection), starts one turn with "hello", and',
        '  prints the workspace status, threads, turns, messages, tools and interactions until Ctrl-C.',
        '',
        `  Relay base URL (HTTPS/WSS): ${started.publicBaseUrl}   (listening on ${started.httpUrl})`,
        started.certFile
          ? `  Development certificate:    ${started.certFile}${started.fingerprint ? `  (SHA-256 ${started.fingerprint})` : ''}\n                              trust it (or pin the fingerprint) in whatever connects over HTTPS/WSS`
          : '  TLS:                        ' + (started.httpUrl.startsWith('https:') ? 'certificate from RELAY_TLS_CERT_FILE' : 'off (plain HTTP)'),
        `  gRPC RelayControl:          ${started.grpcAddress} (${grpcTls ? 'TLS' : 'plaintext'}), metadata  authorization: Bearer $RELAY_CONTROL_CREDENTIAL`,
        givenCredential ? '  Service credential:         the one in RELAY_CONTROL_CREDENTIAL' : '  Service credential:         the export line above (this run only)',
        `  Workspace:                  ${workspaceId}`,
        `  Companion simulator:        device ${online.deviceId}, online, Wire ${online.wireVersion} (${reused ? 'stored device reused' : 'paired now'}; credential in ${shown(credentialFile)})`,
        `  Browser session for origin ${options.origin} (single use, until ${descriptor.expiresAt}):`,
        JSON.stringify(descriptor),
        '  Hand it to a RelayClient (`descriptor`) in a page served from that origin, or from Node with `ws`',
        '  (origin header set to it, the certificate above as ca). Another session, after the export above:',
        `    ${sessionCommand}`,
        '',
        ...shieldLines(shieldStarted, givenShieldCredential ? null : shieldCredential),
        '',
        ...registryLines(registryStarted, givenRegistryCredential ? null : registryCredential),
        '',
        ...wiringLines({
          workspaceId,
          controlFlags,
          simulatorControlAddress,
          mintedControlCredential: givenSimulatorControlCredential ? null : simulatorControlCredential,
          shieldConsulted: env['SIMULATOR_SHIELD_ADDRESS'] ? null : reachable(shieldStarted.grpcAddress),
          cardNamespace: cardsEnv['RELAY_CARD_NAMESPACE'] ?? null,
          workspaceOwner: consoleApi.accountId,
          registryFollowed: feed ? reachable(registryStarted.grpcAddress) : null,
        }),
        '',
      ].join('\n') + '\n',
    );

    // 6. Foreground until a signal or a child's death.
    while (!stopSignal && children.every((child) => child.running)) await sleep(200);
    const dead = children.find((child) => !child.running);
    const code = stopSignal ? EXIT.ok : EXIT.failed;
    if (!stopSignal && dead) io.stderr(`trustmesh dev: ${dead.name} exited (${describeExit(dead.exit)}); stopping; its log is ${shown(join(logDir, `${dead.name}.log`))}\n`);
    return (await stopAll(children, io)) ? code : EXIT.failed;
  } catch (error) {
    const aborted = error instanceof Aborted;
    if (!aborted) io.stderr(`trustmesh dev: ${error instanceof RelayControlError || error instanceof RegistryOnboardingError || error instanceof ConsoleStartError || error instanceof Error ? error.message : 'failed to start'}\n`);
    await stopAll(children, io);
    return aborted ? EXIT.ok : EXIT.failed;
  } finally {
    await pageBuild;
    control?.close();
    clearInterval(orphanWatch);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}

/**
 * The shield analyzer's environment: the platform's (with `DATABASE_URL` it shares that database; embedded, it
 * has a PGlite of its own under `<data dir>/shield-analyzer`, since one process owns an embedded directory),
 * and the development credential as `account:sha256` beside any the user configured.
 */
function shieldEnv(baseEnv: Record<string, string | undefined>, dataDir: string, credential: string): Record<string, string | undefined> {
  const entry = `${SHIELD_DEV_ACCOUNT}:${sha256Hex(credential)}`;
  const configured = baseEnv['SHIELD_OPERATOR_CREDENTIALS']?.trim();
  return {
    ...baseEnv,
    TRUSTMESH_DATA_DIR: baseEnv['DATABASE_URL'] ? dataDir : join(dataDir, 'shield-analyzer'),
    SHIELD_OPERATOR_CREDENTIALS: configured ? `${configured},${entry}` : entry,
  };
}

/** What a person needs to reach the shield: the exports, a first command, each address. */
function shieldLines(started: { httpUrl: string; grpcAddress: string; operatorUrl: string | null }, mintedCredential: string | null): string[] {
  return [
    `Shield analyzer is running (operator account "${SHIELD_DEV_ACCOUNT}"):`,
    `    export SHIELD_URL=${started.httpUrl}`,
    mintedCredential ? `    export SHIELD_CREDENTIAL=${mintedCredential}   (this run only, shown once, never stored)` : '    (SHIELD_CREDENTIAL: the one you set)',
    '    npx trustmesh shield list',
    '    curl -s -H "Authorization: Bearer $SHIELD_CREDENTIAL" "$SHIELD_URL/v0.1/shield/cases"',
    `  Shield REST:                ${started.httpUrl}/v0.1, header  Authorization: Bearer $SHIELD_CREDENTIAL`,
    `  Shield gRPC:                ${started.grpcAddress} (plaintext) trustmesh.shield.v1.ShieldAnalyzer, metadata  authorization: Bearer $SHIELD_CREDENTIAL`,
    `  Shield operator port:       ${started.operatorUrl ? `${started.operatorUrl} (/metrics, /healthz, /readyz)` : 'off'}`,
    '  Analyse a file without a running service:  npx trustmesh shield analyze apps/cli/examples/shield-analyze.example.json',
  ];
}

/**
 * How the apps reach each other, and a line to try each flow: SimulatorControl starts a scenario whose
 * counterparty request the simulator checks with the shield before the approval reaches the browser; the
 * gateway publishes the workspace's card to the registry, where `cards search` finds it.
 */
function wiringLines(wiring: {
  workspaceId: string;
  controlFlags: string[];
  simulatorControlAddress: string;
  mintedControlCredential: string | null;
  shieldConsulted: string | null;
  cardNamespace: string | null;
  /** The workspace's owner at the relay: the console account's id. */
  workspaceOwner: string;
  registryFollowed: string | null;
}): string[] {
  return [
    'The apps are wired together:',
    `  Simulator → shield:         ${wiring.shieldConsulted ? `${wiring.shieldConsulted} (gRPC, the development operator credential): counterparty requests are checked before their approval` : 'the Shield in SIMULATOR_SHIELD_ADDRESS'}`,
    `  Console → relay, shield, registry: gRPC with the console's own credentials (in its environment only), acting for the signed-in account`,
    `  Gateway → registry:         ${wiring.cardNamespace ? `workspace cards published under ${wiring.cardNamespace} (publisher credential in a 0600 file under the data directory)` : 'the registry in RELAY_REGISTRY_GRPC_ADDRESS'}`,
    `  Registry → shield:          ${wiring.registryFollowed ? `registry.cards.v1 followed over the registry's gRPC EventFeed at ${wiring.registryFollowed} (a feed credential in the shield's environment only): consults say what the registry knows` : 'registry.cards.v1 on the shared bus (DATABASE_URL or Kafka), or the feed in SHIELD_REGISTRY_FEED_ADDRESS'}`,
    `  SimulatorControl:           ${wiring.simulatorControlAddress} (plaintext) trustmesh.relay.v1.SimulatorControl, metadata  authorization: Bearer $SIMULATOR_CONTROL_CREDENTIAL`,
    wiring.mintedControlCredential ? `    export SIMULATOR_CONTROL_CREDENTIAL=${wiring.mintedControlCredential}   (this run only, shown once, never stored)` : '    (SIMULATOR_CONTROL_CREDENTIAL: the one you set)',
    '  Publish the workspace\'s card, then find it in the registry (after the exports above):',
    `    npx trustmesh relay publish-card ${wiring.controlFlags.filter((flag) => !flag.startsWith('--origin')).join(' ')} --owner ${wiring.workspaceOwner} --name Development-companion --description Development-workspace-agent`,
    '    npx trustmesh cards search Development-companion',
  ];
}

/** In reverse start order: the simulator first (it closes its socket with 1000), then the gateway, then the apps it calls; true if all exited cleanly. */
async function stopAll(children: readonly ChildApp[], io: CommandIo): Promise<boolean> {
  let clean = true;
  for (const child of [...children].reverse()) {
    // A terminal's Ctrl-C reaches the children too: either way each one is reported once it has exited.
    const exit = await child.stop();
    io.stdout(`trustmesh dev: ${child.name} (pid ${child.process.pid}) exited (${describeExit(exit)})\n`);
    if (exit.code !== 0) clean = false;
  }
  return clean;
}

/** The non-secret fields of the simulator's stored device (its credential is never read here). */
function readStoredDevice(file: string): { workspaceId: string; deviceId: string } | null {
  if (!existsSync(file)) return null;
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as { workspaceId?: unknown; deviceId?: unknown };
    return typeof record.workspaceId === 'string' && typeof record.deviceId === 'string' ? { workspaceId: record.workspaceId, deviceId: record.deviceId } : null;
  } catch {
    return null;
  }
}

/** The status of a GET, or null when the server does not answer (yet). */
function httpStatus(url: string, ca: Buffer | null): Promise<number | null> {
  return new Promise((resolveStatus) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const request = get(url, { ...(ca ? { ca } : {}), timeout: 5_000 }, (response) => {
      response.resume();
      resolveStatus(response.statusCode ?? null);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolveStatus(null));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
