/**
 * `npm run bench:console` (issue 11, Performance): does the console's page keep up with a workspace streaming
 * turns while the relay is under load? Frames the page renders per second in Chromium against frames a bare
 * `RelayClient` in Node receives per second on the same workspace over the same wall-clock windows (the
 * baseline), and the page's JavaScript in KiB, gzipped.
 *
 * - The platform is `trustmesh dev` as `npm start` runs it (package.json's `start` command, embedded
 *   defaults, a temp data dir, free ports; it builds the page when the build is older than its sources). The
 *   bench reads what it prints: the console's URL and the `developer` password, the development workspace,
 *   SimulatorControl's address and credential, the relay's development certificate.
 * - Load mode: `trustmesh dev` gives its simulator no RelayControl of its own (the service credential goes to
 *   the gateway as a digest only), so the bench chooses the gateway's gRPC port and a service credential itself
 *   and hands them to the simulator through the documented variables every child inherits
 *   (`RELAY_CONTROL_ADDRESS`, `RELAY_CONTROL_CREDENTIAL_FILE`: a 0600 file in the temp dir). SimulatorControl
 *   `StartLoad` then runs other Companions streaming generated turns and `@trustmesh/relay-client` browsers on
 *   the same gateway, in the same simulator process as the development workspace's Companion.
 * - The stream: SimulatorControl `StartScenario` on the development workspace, a thread of its own with a long
 *   history (the page shows the snapshot above the live turns and refreshes it after every turn) and turns after
 *   one another at the machine, each several long messages streamed in small deltas (every delta is a sequenced
 *   frame), sized to outlast the rounds.
 * - The page: headless Chromium (playwright-core, /usr/bin/chromium) trusting exactly the relay's development
 *   certificate (`--ignore-certificate-errors-spki-list` with its SPKI hash), signed in through the sign-in
 *   form, on `/workspaces/<id>` (Live, connected, workspace online) with the scenario's thread open, so every
 *   delta repaints its turn. `window.__trustmeshConsole.framesRendered` counts the sequenced frames the page
 *   applied and painted.
 * - The baseline: a `RelayClient` in this process over `ws` (origin = the console's, ca = the dev certificate),
 *   its descriptors minted by the console's API with a signed-in session as the page's are; it counts every
 *   applied sequenced frame (`frame` events) and does nothing else.
 * - Rounds: after an unmeasured warm-up round, each round reads both counters at its start and end (the
 *   page's through one `page.evaluate`, the client's just before and after it, averaged) and prints frames/s
 *   for both and their ratio; `goal render-vs-client` is the median of the per-round ratios. The two count
 *   over the same windows (nothing to alternate: a burst of load on the shared machine hits both at once), and
 *   the rounds repeat so one burst moves one round, not the median. The page's main-thread time over the rounds
 *   (CDP `Performance.getMetrics`: tasks, script, style and layout) says how much headroom it had.
 * - Bundle: node:zlib level 9 over `dist/apps/console/web-dev/assets/*.js` (the page npm start built and served): the first load (the scripts and module
 *   preloads index.html names), the workspace route's chunks (the further scripts Chromium fetched opening
 *   `/workspaces/<id>` afresh, its cache off, until the thread's turn showed), their sum, and every chunk of
 *   the build.
 *
 * A run where the page or the client stalls (no frame in a round), errors (a page error or crash, a client
 * error, a reconnect, a gap or reset, a stream notice on the page, a connection not ready or a workspace not
 * online at a round's end), or where the scenario or the load fails, is invalid: it says why, prints no goal
 * line and exits 1.
 *
 * Settings (environment): BENCH_ROUNDS (5), BENCH_ROUND_SECONDS (5), BENCH_LOAD_COMPANIONS (10),
 * BENCH_LOAD_BROWSERS (20), BENCH_TURNS (160, turns the scenario plays), BENCH_CHUNK_DELAY_MS (2, between a
 * message's deltas), BENCH_HISTORY (200, earlier messages of the thread), BENCH_CHROMIUM (/usr/bin/chromium),
 * BENCH_PAGE_PROFILE=<file> (a CDP CPU profile of the page over the measured rounds, .cpuprofile).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';

import { credentials, Metadata } from '@grpc/grpc-js';
import { simulatorControlV1GrpcJs as Sim } from '@trustmesh/contracts';
import { RelayClient } from '@trustmesh/relay-client';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { WebSocket } from 'ws';

import { load, median, setting, sleep } from './bench-support';

const ROOT = join(__dirname, '..', '..');
const ASSETS = join(ROOT, 'dist', 'apps', 'console', 'web-dev');

const ROUNDS = setting('BENCH_ROUNDS', 5, 1);
const ROUND_MS = setting('BENCH_ROUND_SECONDS', 5, 1) * 1000;
const LOAD_COMPANIONS = setting('BENCH_LOAD_COMPANIONS', 10, 1);
const LOAD_BROWSERS = setting('BENCH_LOAD_BROWSERS', 20, 0);
const TURNS = setting('BENCH_TURNS', 160, 1);
const CHUNK_DELAY_MS = setting('BENCH_CHUNK_DELAY_MS', 2, 0);
const HISTORY = setting('BENCH_HISTORY', 200, 0);
const CHROMIUM = process.env['BENCH_CHROMIUM'] || '/usr/bin/chromium';
const PAGE_PROFILE = process.env['BENCH_PAGE_PROFILE'];
/** Each turn: this many messages of this many characters, streamed in deltas of `chunkChars` every `chunkDelayMs`. */
const TURN_SHAPE = { messages: 3, messageChars: 900, chunkChars: 8, chunkDelayMs: CHUNK_DELAY_MS };
const START_TIMEOUT_MS = 300_000;

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** Why the run is invalid; collected as it goes, so one run reports every problem it saw. */
const failures: string[] = [];

// ------------------------------------------------------------------------------------------- the platform

interface Dev {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<void>;
}

/** A free TCP port on loopback (the gateway's gRPC port, which the simulator must know before it starts). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** package.json's `start` command (`node bin/trustmesh.js dev`), run with this Node on `dataDir`. */
function startDev(dataDir: string, grpcPort: number, credentialFile: string, credential: string): Dev {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start'] ?? '';
  const [program, ...args] = script.split(/\s+/);
  if (program !== 'node') throw new Error(`package.json's start script is not a node command: ${script}`);
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? tmpdir(),
      TRUSTMESH_DATA_DIR: dataDir,
      RELAY_HTTP_PORT: '0',
      RELAY_GRPC_PORT: String(grpcPort),
      SHIELD_HTTP_PORT: '0',
      SHIELD_GRPC_PORT: '0',
      REGISTRY_HTTP_PORT: '0',
      REGISTRY_GRPC_PORT: '0',
      CONSOLE_HTTP_PORT: '0',
      SIMULATOR_CONTROL_ADDRESS: '127.0.0.1:0',
      // The service credential `trustmesh dev` registers at the gateway (as a digest) ...
      RELAY_CONTROL_CREDENTIAL: credential,
      // ... and, through the variables the children inherit, RelayControl for the simulator's load mode.
      RELAY_CONTROL_ADDRESS: `127.0.0.1:${grpcPort}`,
      RELAY_CONTROL_CREDENTIAL_FILE: credentialFile,
      // Load Companions redeem pairing codes and connect from this one address.
      RELAY_ENROLLMENT_RATE_LIMIT: '100000',
      RELAY_MAX_PENDING_PER_SOURCE: '100000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  // The head of stdout (what it prints at start) and the tail of stderr: the apps' logs must not grow this process.
  child.stdout?.on('data', (chunk: Buffer) => {
    if (output.stdout.length < 256 * 1024) output.stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr = (output.stderr + chunk.toString('utf8')).slice(-16 * 1024)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output, exited };
}

async function stopDev(dev: Dev): Promise<void> {
  const pids = [...dev.output.stdout.matchAll(/starting [a-z-]+ \(pid (\d+)\)/g)].map((match) => Number(match[1]));
  if (dev.child.exitCode === null && dev.child.signalCode === null) dev.child.kill('SIGTERM');
  await Promise.race([dev.exited, sleep(90_000)]);
  if (dev.child.exitCode === null && dev.child.signalCode === null) dev.child.kill('SIGKILL');
  await dev.exited;
  // The launcher stops its apps itself; one that outlived it is stopped here.
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function field(text: string, pattern: RegExp): string {
  const match = pattern.exec(text)?.[1];
  if (match === undefined) throw new Error(`trustmesh dev did not print ${pattern}`);
  return match;
}

/** What `trustmesh dev` printed, once it printed its session (the last thing it prints at start). */
async function printed(dev: Dev) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!dev.output.stdout.includes('{"connectUrl"') && dev.child.exitCode === null) {
    if (Date.now() > deadline) throw new Error('timed out waiting for trustmesh dev to start');
    await sleep(200);
  }
  if (dev.child.exitCode !== null) throw new Error(`trustmesh dev exited ${dev.child.exitCode}: ${dev.output.stderr.slice(-2000)}`);
  const out = dev.output.stdout;
  return {
    consoleUrl: field(out, /^Trustmesh console: (http:\/\/\S+)$/m),
    password: field(out, /Sign in as "developer" with password (tmpw_[A-Za-z0-9_-]+) /),
    workspaceId: field(out, /Workspace: +([0-9a-f-]{36})/),
    certFile: field(out, /Development certificate: +(\S+)/),
    relayBaseUrl: field(out, /Relay base URL \(HTTPS\/WSS\): (\S+)/),
    controlAddress: field(out, /SimulatorControl: +(127\.0\.0\.1:\d+) /),
    controlCredential: field(out, /^ +export SIMULATOR_CONTROL_CREDENTIAL=(\S+) /m),
  };
}

// ------------------------------------------------------------------------------------------- SimulatorControl

function simulatorControl(address: string, credential: string) {
  const client = new Sim.SimulatorControlClient(address, credentials.createInsecure());
  const metadata = () => {
    const value = new Metadata();
    value.set('authorization', `Bearer ${credential}`);
    return value;
  };
  const settle =
    <Res>(resolve: (response: Res) => void, reject: (error: Error) => void) =>
    (error: Error | null, response: Res) =>
      error ? reject(error) : resolve(response);
  return {
    startScenario: (document: string) => new Promise<Sim.StartScenarioResponse>((resolve, reject) => client.startScenario({ document, format: 'json' }, metadata(), settle(resolve, reject))),
    startLoad: (request: Partial<Sim.StartLoadRequest>) => new Promise<Sim.StartLoadResponse>((resolve, reject) => client.startLoad(Sim.StartLoadRequest.fromPartial(request), metadata(), settle(resolve, reject))),
    stopLoad: () => new Promise<Sim.StopLoadResponse>((resolve, reject) => client.stopLoad({}, metadata(), settle(resolve, reject))),
    stats: () => new Promise<Sim.GetStatsResponse>((resolve, reject) => client.getStats({}, metadata(), settle(resolve, reject))),
    close: () => client.close(),
  };
}

/**
 * The stream: one thread with `HISTORY` earlier messages (the page shows the snapshot's latest ones above the
 * live turns, and refreshes it after every turn), then `TURNS` turns at the machine one after another, each of
 * long messages in small deltas.
 */
function scenarioDocument(threadId: string): string {
  const words = 'the relay streams every delta of this answer as its own sequenced frame while the page repaints the turn ';
  const text = (turn: number, message: number) => `Turn ${turn}, part ${message}: ${words.repeat(Math.ceil(TURN_SHAPE.messageChars / words.length))}`.slice(0, TURN_SHAPE.messageChars);
  const document = JSON.stringify({
    version: 1,
    name: 'console render benchmark',
    threads: [
      {
        key: 'bench',
        id: threadId,
        title: 'Render benchmark',
        history: Array.from({ length: HISTORY }, (_, index) => ({ kind: index % 2 === 0 ? 'user' : 'assistant', text: `Earlier message ${index + 1}: ${words.repeat(3)}` })),
      },
    ],
    steps: Array.from({ length: TURNS }, (_, turn) => ({
      kind: 'turn',
      thread: 'bench',
      input: `Stream turn ${turn + 1}`,
      steps: Array.from({ length: TURN_SHAPE.messages }, (_, message) => ({ kind: 'message', text: text(turn + 1, message + 1), chunkChars: TURN_SHAPE.chunkChars, chunkDelayMs: TURN_SHAPE.chunkDelayMs })),
    })),
  });
  if (Buffer.byteLength(document) > 1_048_576) throw new Error('BENCH_TURNS makes the scenario larger than 1 MiB: lower it');
  return document;
}

// ------------------------------------------------------------------------------------------- the console's API

/** Signs in to the console's API as the page does: the session cookie and the CSRF token. */
async function signIn(consoleUrl: string, password: string): Promise<{ cookie: string; csrfToken: string }> {
  const answer = await fetch(`${consoleUrl}/api/v1/session`, {
    method: 'POST',
    headers: { origin: consoleUrl, 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'developer', password }),
  });
  const body = (await answer.json()) as { csrfToken?: string };
  const cookie = /^(tm_console_session=[^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
  if (answer.status !== 200 || !cookie || !body.csrfToken) throw new Error(`signing in to the console answered ${answer.status}`);
  return { cookie, csrfToken: body.csrfToken };
}

/** The baseline: a bare RelayClient counting applied sequenced frames, its descriptors minted by the console. */
function baselineClient(consoleUrl: string, workspaceId: string, session: { cookie: string; csrfToken: string }, ca: Buffer) {
  const counts = { frames: 0, errors: [] as string[], gaps: 0, resets: 0, readies: 0 };
  const client = new RelayClient({
    descriptor: async () => {
      const answer = await fetch(`${consoleUrl}/api/v1/workspaces/${workspaceId}/session-descriptors`, {
        method: 'POST',
        headers: { origin: consoleUrl, cookie: session.cookie, 'x-csrf-token': session.csrfToken, 'content-type': 'application/json' },
        body: '{}',
      });
      if (answer.status !== 200) throw new Error(`the console's descriptor mint answered ${answer.status}`);
      return (await answer.json()) as { connectUrl: string; expiresAt: string };
    },
    createSocket: (url) => new WebSocket(url, { origin: consoleUrl, ca }),
  });
  client.on('frame', () => (counts.frames += 1));
  client.on('error', (error) => counts.errors.push(`${error.kind} ${error.code}`));
  client.on('gap', () => (counts.gaps += 1));
  client.on('reset', () => (counts.resets += 1));
  // More than one session.ready is a reconnect.
  client.on('ready', () => (counts.readies += 1));
  return { client, counts };
}

// ------------------------------------------------------------------------------------------- the page

/** base64 SHA-256 of the certificate's SubjectPublicKeyInfo: what `--ignore-certificate-errors-spki-list` takes. */
function spkiHash(pem: Buffer): string {
  const der = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

async function openPage(profile: string, spki: string): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', `--ignore-certificate-errors-spki-list=${spki}`],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message.slice(0, 300)}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(`console error: ${message.text().slice(0, 300)}`);
  });
  page.on('crash', () => errors.push('the page crashed'));
  return { context, page, errors };
}

/** The page's painted-frame counter and whether it is still connected to an online workspace. */
function pageState(page: Page): Promise<{ frames: number; connection: string | null; status: string | null }> {
  return page.evaluate(() => ({
    frames: (window as unknown as { __trustmeshConsole?: { framesRendered: number } }).__trustmeshConsole?.framesRendered ?? 0,
    connection: document.querySelector('[data-testid=connection-state]')?.getAttribute('data-state') ?? null,
    status: document.querySelector('[data-testid=workspace-status]')?.getAttribute('data-status') ?? null,
  }));
}

// ------------------------------------------------------------------------------------------- the bundle

/** Gzipped sizes (level 9) of the page's scripts: the first load, the workspace route's chunks, all of them. */
function bundleSizes(workspaceScripts: ReadonlySet<string>) {
  const assets = join(ASSETS, 'assets');
  const gz = new Map(
    readdirSync(assets)
      .filter((name) => name.endsWith('.js'))
      .map((name) => [name, gzipSync(readFileSync(join(assets, name)), { level: 9 }).length] as const),
  );
  const html = readFileSync(join(ASSETS, 'index.html'), 'utf8');
  const named = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g)].map((match) => basename(match[1] as string));
  const first = [...new Set(named)];
  const workspace = [...workspaceScripts].filter((name) => !first.includes(name) && gz.has(name));
  const sum = (names: readonly string[]) => names.reduce((total, name) => total + (gz.get(name) ?? 0), 0);
  return { first, workspace, firstBytes: sum(first), workspaceBytes: sum(workspace), allBytes: sum([...gz.keys()]), files: gz.size };
}

// ------------------------------------------------------------------------------------------- main

interface Round {
  client: number;
  page: number;
}

async function main(): Promise<void> {
  console.log(`console render benchmark, node ${process.version}, ${cpus().length} cores, load average ${load()} at start`);
  const temp = mkdtempSync(join(tmpdir(), 'bench-console-'));
  const dataDir = join(temp, 'data');
  const profile = join(temp, 'chromium');
  const credential = `tmsc_${randomBytes(24).toString('base64url')}`;
  const credentialFile = join(temp, 'relay-control.credential');
  writeFileSync(credentialFile, credential, { mode: 0o600 });
  const dev = startDev(dataDir, await freePort(), credentialFile, credential);
  let control: ReturnType<typeof simulatorControl> | null = null;
  let browser: { context: BrowserContext; page: Page; errors: string[] } | null = null;
  let baseline: ReturnType<typeof baselineClient> | null = null;
  try {
    const started = performance.now();
    const out = await printed(dev);
    console.log(`platform: trustmesh dev up in ${((performance.now() - started) / 1000).toFixed(0)} s: console ${out.consoleUrl}, relay ${out.relayBaseUrl}, workspace ${out.workspaceId}`);
    const ca = readFileSync(out.certFile);
    control = simulatorControl(out.controlAddress, out.controlCredential);

    // Load first: other Companions and browsers on the same gateway.
    const loadStarted = await control.startLoad({ companions: LOAD_COMPANIONS, browsers: LOAD_BROWSERS, durationSeconds: 0 });
    console.log(`load: SimulatorControl StartLoad, ${loadStarted.workspaceIds.length} other Companions streaming generated turns, ${LOAD_BROWSERS} relay-client browsers, same gateway`);

    // The stream on the development workspace: its thread exists before the page lists the threads.
    const threadId = randomUUID();
    const scenario = await control.startScenario(scenarioDocument(threadId));
    console.log(
      `stream: SimulatorControl StartScenario "${scenario.name}" on the development workspace, thread ${threadId} with ${HISTORY} earlier messages: ${TURNS} turns of ${TURN_SHAPE.messages} messages × ${TURN_SHAPE.messageChars} chars in ${TURN_SHAPE.chunkChars}-char deltas every ${TURN_SHAPE.chunkDelayMs} ms`,
    );

    // The baseline client.
    baseline = baselineClient(out.consoleUrl, out.workspaceId, await signIn(out.consoleUrl, out.password), ca);
    await baseline.client.connect();

    // The page: signed in through its form, then the workspace opened afresh (its scripts recorded).
    browser = await openPage(profile, spkiHash(ca));
    const { page } = browser;
    const workspaceUrl = `${out.consoleUrl}/workspaces/${out.workspaceId}`;
    await page.goto(`${out.consoleUrl}/sign-in`);
    await page.getByTestId('sign-in-username').fill('developer');
    await page.getByTestId('sign-in-password').fill(out.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'), { timeout: 60_000 });
    const scripts = new Set<string>();
    page.on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (path.startsWith('/assets/') && path.endsWith('.js')) scripts.add(basename(path));
    });
    // With the cache off, every script the route needs is fetched (and seen), not only those sign-in did not load.
    const network = await page.context().newCDPSession(page);
    await network.send('Network.enable');
    await network.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto(workspaceUrl);
    await page.waitForSelector('[data-testid=connection-state][data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('[data-testid=workspace-status][data-status=online]', { timeout: 60_000 });
    await page.locator(`[data-testid=thread-item][data-thread-id="${threadId}"]`).click({ timeout: 60_000 });
    await page.waitForSelector('[data-testid=timeline] [data-testid=turn]', { timeout: 60_000 });
    const chromiumVersion = browser.context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent));
    console.log(`page: Chromium ${chromiumVersion} (headless), signed in as developer on /workspaces/${out.workspaceId}, Live, connected, the scenario's thread open`);
    console.log(`baseline: RelayClient in Node over ws (origin ${out.consoleUrl}, ca the dev certificate), descriptors from the console's API`);

    await network.send('Network.setCacheDisabled', { cacheDisabled: false });
    await network.detach();
    const bundle = bundleSizes(scripts);

    // The page's main-thread time over the rounds (Chromium's own task accounting): how much headroom it had.
    const metrics = await page.context().newCDPSession(page);
    await metrics.send('Performance.enable');
    const mainThread = async () => {
      const { metrics: values } = await metrics.send('Performance.getMetrics');
      const of = (name: string) => values.find((metric) => metric.name === name)?.value ?? 0;
      return { at: performance.now(), task: of('TaskDuration'), script: of('ScriptDuration'), layout: of('LayoutDuration') + of('RecalcStyleDuration') };
    };
    const profiler = PAGE_PROFILE ? await page.context().newCDPSession(page) : null;
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.start');
    }

    /** Both counters at one instant: the client's read just before and just after the page's, averaged. */
    const sample = async () => {
      const before = baseline?.counts.frames ?? 0;
      const state = await pageState(page);
      const after = baseline?.counts.frames ?? 0;
      return { at: performance.now(), client: (before + after) / 2, page: state.frames, state };
    };
    const measure = async (): Promise<Round> => {
      const start = await sample();
      await sleep(ROUND_MS);
      const end = await sample();
      const seconds = (end.at - start.at) / 1000;
      if (end.state.connection !== 'ready' || end.state.status !== 'online') failures.push(`the page was ${end.state.connection}, workspace ${end.state.status} at the end of a round`);
      const client = baseline?.client;
      if (client?.state !== 'ready' || client.workspaceStatus !== 'online') failures.push(`the client was ${client?.state}, workspace ${client?.workspaceStatus} at the end of a round`);
      return { client: (end.client - start.client) / seconds, page: (end.page - start.page) / seconds };
    };

    console.log(`rounds: ${ROUNDS} × ${ROUND_MS / 1000} s after a warm-up round; both counters read at each round's start and end`);
    const warm = await measure();
    console.log(`  warm-up: client ${warm.client.toFixed(1)} frames/s, page ${warm.page.toFixed(1)} frames/s (not counted)  [load ${load()}]`);
    const rounds: Round[] = [];
    const threadBefore = await mainThread();
    for (let round = 1; round <= ROUNDS; round += 1) {
      const result = await measure();
      rounds.push(result);
      const ratio = result.page / result.client;
      console.log(`  round ${round}: client ${result.client.toFixed(1)} frames/s, page ${result.page.toFixed(1)} frames/s, ratio ${ratio.toFixed(3)}  [load ${load()}]`);
      if (result.client <= 0) failures.push(`round ${round}: the client received no frame (stalled)`);
      if (result.page <= 0) failures.push(`round ${round}: the page rendered no frame (stalled)`);
    }

    const threadAfter = await mainThread();
    const share = (key: 'task' | 'script' | 'layout') => `${((100 * (threadAfter[key] - threadBefore[key]) * 1000) / (threadAfter.at - threadBefore.at)).toFixed(0)}%`;
    if (profiler && PAGE_PROFILE) {
      const { profile: cpuProfile } = (await profiler.send('Profiler.stop')) as { profile: unknown };
      writeFileSync(PAGE_PROFILE, JSON.stringify(cpuProfile));
      console.log(`page CPU profile over the rounds: ${PAGE_PROFILE}`);
    }

    const stats = await control.stats();
    const scenarioState = Sim.ScenarioRunState[stats.scenario?.state ?? 0] ?? 'unknown';
    console.log(`stream: scenario ${scenarioState}, ${stats.scenario?.stepsCompleted ?? 0} of ${stats.scenario?.stepCount ?? 0} steps played`);
    if (stats.scenario?.state === Sim.ScenarioRunState.FAILED) failures.push(`the scenario failed: ${stats.scenario.errorCode} ${stats.scenario.errorMessage}`);
    const stopped = await control.stopLoad();
    const report = stopped.load?.report;
    if (report) {
      console.log(
        `load report: ${report.companions} Companions, ${report.browsers} browsers, ${Math.round(report.deliveredFramesPerSecond)} frames/s delivered, latency p50 ${report.latencyP50Ms.toFixed(1)} ms p99 ${report.latencyP99Ms.toFixed(1)} ms, errors ${report.errors}, gaps ${report.gaps}, reconnects ${report.reconnects}`,
      );
    }
    if (stopped.load?.state === Sim.LoadRunState.FAILED) failures.push(`the load failed: ${stopped.load.errorMessage}`);

    const { counts } = baseline;
    if (counts.errors.length > 0) failures.push(`the client reported errors: ${counts.errors.slice(0, 5).join(', ')}`);
    if (counts.gaps > 0 || counts.resets > 0) failures.push(`the client saw ${counts.gaps} gap(s) and ${counts.resets} reset(s)`);
    if (counts.readies !== 1) failures.push(`the client reconnected (${counts.readies} sessions)`);
    const notices = await page.locator('[data-testid=stream-notice]').count();
    if (notices > 0) failures.push(`the page shows ${notices} stream notice(s) (gap, recovery, reset or snapshot failure)`);
    failures.push(...browser.errors.slice(0, 5));

    const clientRate = median(rounds.map((round) => round.client));
    const pageRate = median(rounds.map((round) => round.page));
    console.log(`median of ${ROUNDS} rounds:`);
    console.log(`  baseline RelayClient in Node: ${clientRate.toFixed(1).padStart(7)} frames/s received`);
    console.log(`  the page in Chromium:         ${pageRate.toFixed(1).padStart(7)} frames/s rendered`);
    console.log(`  the page's main thread over the rounds: busy ${share('task')} of the time (script ${share('script')}, style and layout ${share('layout')})`);
    console.log(`page JavaScript, gzip -9 of dist/apps/console/web-dev/assets/*.js:`);
    console.log(`  first load (index.html, ${bundle.first.length} file(s)):        ${kib(bundle.firstBytes).padStart(10)}`);
    console.log(`  workspace route chunks (${bundle.workspace.length} file(s)):     ${kib(bundle.workspaceBytes).padStart(10)}`);
    console.log(`  total, first load + workspace route: ${kib(bundle.firstBytes + bundle.workspaceBytes).padStart(10)}`);
    console.log(`  (every chunk of the build, ${bundle.files} files:  ${kib(bundle.allBytes).padStart(10)})`);
    console.log(`load average at end ${load()}`);

    const ratio = median(rounds.map((round) => round.page / round.client));
    if (failures.length > 0 || !Number.isFinite(ratio)) {
      for (const failure of failures.slice(0, 10)) console.log(`  INVALID: ${failure}`);
      console.log(`the run was invalid (${failures.length} problem(s)): no goal figure is printed`);
      process.exitCode = 1;
      return;
    }
    console.log(`goal render-vs-client: ${ratio.toFixed(2)}`);
  } finally {
    baseline?.client.close();
    await browser?.context.close().catch(() => undefined);
    control?.close();
    await stopDev(dev);
    rmSync(temp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench:console failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
