/**
 * `npm run bench:relay-gateway`: the relay gateway against a baseline forwarder, same load, same run.
 *
 * - The gateway is the real one (`apps/relay-gateway/src/main.ts`) on embedded defaults: PGlite in a temp
 *   data dir, the local bus, its self-signed development certificate; a child process, so it never shares an
 *   event loop with the load generator. It is measured on its second start on that data dir (see
 *   `startGateway`: every start but a new installation's opens an existing cluster).
 * - The baseline (`baseline-forwarder.ts`) is another child process: `ws` alone, passing the same frames
 *   between the same sockets raw, with no validation, persistence or routing (same certificate, same TLS).
 * - The load is the simulator's load mode (`../load`): simulated Companions streaming generated turns and
 *   `@trustmesh/relay-client` browsers, provisioned through RelayControl for the gateway and through
 *   `ForwarderProvisioner` for the baseline; the same measurement in both (delivered sequenced frames,
 *   end-to-end latency from the Companion's socket write to the browser's socket receipt).
 * - Rounds interleave gateway and forwarder (alternating which goes first), so the machine's noise hits both
 *   alike, and each starts only once both processes are quiet (the gateway works off a round's session ends
 *   and log writes for a while after it); each goal is the median of the per-round ratios.
 * - Memory per streaming workspace: the gateway's RSS, heap after GC, external memory and the frames its
 *   catch-up rings retain (`relay_frames_log_retained`), once right after start and again after each
 *   measured gateway round (outside the measured window: a probe collects garbage); the growth over the
 *   fresh gateway divided by the streaming workspaces is the figure.
 * - Memory per idle connection: on a fresh gateway, 5,000 browser sessions (tickets through RelayControl,
 *   spread over the workspaces) stay idle after `session.ready`; the gateway's RSS (/proc/<pid>/status) and
 *   heap after GC (a preloaded probe, `memory-probe.ts`) before and after.
 *
 * A round with errors, reconnects, gaps, lost frames or gateway rejections makes the run invalid: no goal
 * figure is printed and the exit status is 1.
 *
 * Settings (environment): BENCH_WORKSPACES (50), BENCH_BROWSERS_PER_WORKSPACE (2), BENCH_ROUNDS (3),
 * BENCH_ROUND_SECONDS (10), BENCH_TURN_INTERVAL_MS (100), BENCH_IDLE_CONNECTIONS (5000, 0 = skip),
 * BENCH_GATEWAY_CPU_PROF=<dir> (node --cpu-prof on the gateway child; written when it exits),
 * BENCH_GATEWAY_NODE_FLAGS (more node flags for the gateway child, e.g. --trace-gc); the gateway's own RELAY_*
 * settings given to the bench reach the gateway (e.g. RELAY_FRAMES_RETENTION_FRAMES).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { SecretText } from '@trustmesh/platform-config';
import { startLoad, runLoad, simulatorLoadStack, type LoadOptions, type LoadProvisioner, type LoadReport } from '../load';

const ROOT = join(__dirname, '..', '..', '..', '..');
const ORIGIN = 'https://app.trustmesh.test';

const setting = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};
const WORKSPACES = setting('BENCH_WORKSPACES', 50);
const BROWSERS_PER_WORKSPACE = setting('BENCH_BROWSERS_PER_WORKSPACE', 2);
const ROUNDS = Math.max(3, setting('BENCH_ROUNDS', 3));
const ROUND_MS = setting('BENCH_ROUND_SECONDS', 10) * 1000;
const TURN_INTERVAL_MS = setting('BENCH_TURN_INTERVAL_MS', 100);
const IDLE_CONNECTIONS = setting('BENCH_IDLE_CONNECTIONS', 5000);
const CPU_PROF_DIR = process.env['BENCH_GATEWAY_CPU_PROF'];
/** Default turn shape of the load generator, spelled out so the figures say what was offered. */
const TURNS = { messageChars: 400, chunkChars: 16, chunkDelayMs: 5, reasoningChars: 120, toolCalls: 2, toolOutputChars: 200, toolOutputChunks: 2, toolDurationMs: 20 };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const int = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => `${value.toFixed(1)} ms`;
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

// ------------------------------------------------------------------------------------------- child processes

interface Child {
  process: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<void>;
  stop(): Promise<void>;
}

function startChild(args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', TSX_TSCONFIG_PATH: 'tsconfig.base.json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  // Keep only the head of the output (start-up lines) and the tail of stderr: logs of thousands of sessions
  // must not grow this process.
  child.stdout?.on('data', (chunk: Buffer) => {
    if (output.stdout.length < 64 * 1024) output.stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr = (output.stderr + chunk.toString('utf8')).slice(-16 * 1024)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    process: child,
    output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(30_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Gateway {
  child: Child;
  httpUrl: string;
  /** http://127.0.0.1:<port>: the operator port, where /metrics is served. */
  operatorUrl: string;
  grpcAddress: string;
  credential: string;
  ca: Buffer;
  certFile: string;
  keyFile: string;
  probeFile: string;
  dataDir: string;
}

/**
 * The gateway as every start after the first runs it: on an existing embedded database. A first start also
 * runs PGlite's initdb (the database library then reopens the new cluster on a fresh thread, so that start
 * ends up about 80 MiB above a restart instead of 400 MiB); the gateway starts once on a fresh data
 * directory, stops, and is measured on its restart.
 */
async function startGateway(): Promise<Gateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-relay-gateway-'));
  try {
    const first = await launchGateway(dataDir);
    await first.child.stop();
    return await launchGateway(dataDir);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function launchGateway(dataDir: string): Promise<Gateway> {
  const probeFile = join(dataDir, 'memory-probe.json');
  const flags = [...(process.env['BENCH_GATEWAY_NODE_FLAGS'] ?? '').split(' ').filter(Boolean), '--expose-gc', '--import', 'tsx', '--import', './apps/companion-simulator/src/bench/memory-probe.ts'];
  if (CPU_PROF_DIR) flags.unshift('--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`);
  const child = startChild([...flags, 'apps/relay-gateway/src/main.ts'], {
    RELAY_HTTP_PORT: '0',
    RELAY_GRPC_PORT: '0',
    TRUSTMESH_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    // Every load Companion redeems a real pairing code and connects from this one address: lift the
    // per-source limits (enrollment attempts, sockets still in their handshake).
    RELAY_ENROLLMENT_RATE_LIMIT: '100000',
    RELAY_MAX_PENDING_PER_SOURCE: '100000',
    // Thousands of sessions open at once (memory per idle connection): the bench measures the relay, not
    // its admission of unauthenticated upgrades.
    RELAY_MAX_PENDING_BROWSER_UPGRADES: '100000',
    RELAY_MAX_PENDING_COMPANION_HANDSHAKES: '100000',
    BENCH_MEMORY_PROBE_FILE: probeFile,
    // The gateway's own settings given to the bench (RELAY_*) reach it, so a setting can be measured.
    ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('RELAY_') && entry[1] !== undefined)),
  });
  const ready = () =>
    child.output.stdout.includes('"msg":"relay gateway listening"') && child.output.stdout.includes('development service credential') && child.output.stdout.includes('development certificate');
  try {
    await until(() => ready() || child.process.exitCode !== null, 120_000, 'the gateway to listen');
    if (child.process.exitCode !== null) throw new Error(`the gateway exited: ${child.output.stderr.slice(0, 2000)}`);
    const listening = child.output.stdout.split('\n').find((line) => line.includes('"msg":"relay gateway listening"')) ?? '';
    const fields = JSON.parse(listening) as { http: string; grpc: string; operator: string | null };
    const credential = /development service credential for gRPC \(this run only; never stored\): (\S+)/.exec(child.output.stdout)?.[1];
    const certFile = /development certificate (\S+) \(SHA-256/.exec(child.output.stdout)?.[1];
    if (!credential || !certFile) throw new Error('the gateway did not print its development credential and certificate');
    if (!fields.operator) throw new Error('the gateway announced no operator port (metrics)');
    return {
      child,
      httpUrl: fields.http,
      operatorUrl: fields.operator,
      grpcAddress: fields.grpc,
      credential,
      ca: readFileSync(certFile),
      certFile,
      keyFile: join(certFile, '..', 'key.pem'),
      probeFile,
      dataDir,
    };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

async function startForwarder(gateway: Gateway): Promise<{ child: Child; url: string }> {
  const child = startChild(['--import', 'tsx', 'apps/companion-simulator/src/bench/baseline-forwarder.ts'], {
    FORWARDER_CERT_FILE: gateway.certFile,
    FORWARDER_KEY_FILE: gateway.keyFile,
    FORWARDER_PORT: '0',
  });
  await until(() => /baseline forwarder listening \d+/.test(child.output.stdout) || child.process.exitCode !== null, 60_000, 'the forwarder to listen');
  if (child.process.exitCode !== null) throw new Error(`the forwarder exited: ${child.output.stderr.slice(0, 2000)}`);
  const port = /baseline forwarder listening (\d+)/.exec(child.output.stdout)?.[1] as string;
  // The same host name as the gateway's descriptors (its development certificate names localhost).
  return { child, url: `https://localhost:${port}` };
}

/** Provisioning for the baseline: no control plane, the ids carry the pairing the forwarder needs. */
class ForwarderProvisioner implements LoadProvisioner {
  constructor(private readonly baseUrl: string) {}
  async createWorkspace(): Promise<string> {
    return randomUUID();
  }
  async createPairingCode(): Promise<string> {
    throw new Error('the baseline forwarder enrolls devices directly');
  }
  async enrollDevice(workspaceId: string): Promise<{ deviceId: string; workspaceId: string; deviceCredential: string }> {
    // The forwarder reads the workspace from device.connect's deviceId and checks no credential.
    return { deviceId: workspaceId, workspaceId, deviceCredential: 'tmdc_baseline-forwarder-checks-nothing' };
  }
  async createBrowserSession(workspaceId: string): Promise<{ connectUrl: string; expiresAt: string }> {
    return { connectUrl: `${this.baseUrl.replace(/^https:/, 'wss:')}/v1/browser?ticket=${workspaceId}`, expiresAt: new Date(Date.now() + 60_000).toISOString() };
  }
  close(): void {
    // nothing to release: no connection is held
  }
}

// ------------------------------------------------------------------------------------------- measurements

/** Gateway counters that mean a frame was refused or lost, by series. */
async function lossCounters(gateway: Gateway): Promise<Map<string, number>> {
  const text = await (await fetch(`${gateway.operatorUrl}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!/^(relay_rejections_total|relay_send_buffer_drops_total|relay_bus_queue_drops_total|relay_bus_publish_failures_total|relay_frames_total\{[^}]*dropped-offline)/.test(line)) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** Frames the gateway's catch-up rings hold over all workspaces, and their bytes where the gateway reports them. */
async function retainedFrames(gateway: Gateway): Promise<{ frames: number; bytes: number | null }> {
  const text = await (await fetch(`${gateway.operatorUrl}/metrics`)).text();
  const value = (name: string) => {
    const line = text.split('\n').find((entry: string) => entry.startsWith(`${name} `));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
  };
  return { frames: value('relay_frames_log_retained') ?? Number.NaN, bytes: value('relay_frames_log_retained_bytes') };
}

function counterIncrease(before: Map<string, number>, after: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [series, value] of after) {
    const increase = value - (before.get(series) ?? 0);
    if (increase > 0) out.push(`${increase}× ${series}`);
  }
  return out;
}

function vmRssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
}

interface MemoryProbe {
  rssKiB: number;
  heapUsedKiB: number;
  heapTotalKiB: number;
  externalKiB: number;
  arrayBuffersKiB: number;
}

async function probe(gateway: Gateway): Promise<MemoryProbe> {
  rmSync(gateway.probeFile, { force: true });
  const sent = Date.now();
  gateway.child.process.kill('SIGUSR2');
  let usage: { heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; at: number } | undefined;
  await until(
    () => {
      try {
        usage = JSON.parse(readFileSync(gateway.probeFile, 'utf8')) as { heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; at: number };
        return usage.at >= sent;
      } catch {
        return false;
      }
    },
    30_000,
    'the gateway\'s memory probe',
  );
  const { heapUsed, heapTotal, external, arrayBuffers } = usage as { heapUsed: number; heapTotal: number; external: number; arrayBuffers: number };
  return {
    rssKiB: vmRssKiB(gateway.child.process.pid as number),
    heapUsedKiB: heapUsed / 1024,
    heapTotalKiB: heapTotal / 1024,
    externalKiB: external / 1024,
    arrayBuffersKiB: arrayBuffers / 1024,
  };
}

// ------------------------------------------------------------------------------------------- rounds

interface Target {
  name: 'gateway' | 'forwarder';
  options: () => Pick<LoadOptions, 'gatewayUrl' | 'tls' | 'relayControl' | 'provisioner'>;
  counters?: () => Promise<Map<string, number>>;
}

/** CPU time (user + system, every thread) a process has used, in clock ticks (`/proc/<pid>/stat`). */
function cpuTicks(pid: number): number {
  // Fields after "pid (comm) " start at field 3 (state); utime and stime are fields 14 and 15.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Waits (at most 60 s) until none of `pids` uses more than 10% of a core over half a second, so that no round
 * starts while the other target still works off its previous round (closing sessions, writing its log). An
 * idle gateway still polls its embedded bus and outbox (a few % of a core), so quiet is not zero.
 */
async function settle(pids: number[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  let before = pids.map(cpuTicks);
  while (Date.now() < deadline) {
    await sleep(500);
    const now = pids.map(cpuTicks);
    if (now.every((ticks, index) => ticks - (before[index] ?? 0) <= 5)) return;
    before = now;
  }
  console.log('  (the targets did not go quiet within 60 s; measuring anyway)');
}

interface RoundResult {
  report: LoadReport;
  problems: string[];
}

async function round(target: Target, seed: number): Promise<RoundResult> {
  const before = await target.counters?.();
  const report = await runLoad({
    ...target.options(),
    stack: simulatorLoadStack({ turns: TURNS }),
    companions: WORKSPACES,
    browsers: WORKSPACES * BROWSERS_PER_WORKSPACE,
    origin: ORIGIN,
    turnIntervalMs: TURN_INTERVAL_MS,
    durationMs: ROUND_MS,
    seed,
  });
  const problems: string[] = [];
  if (report.errors > 0) problems.push(`${report.errors} errors (${report.errorSamples.join('; ')})`);
  if (report.reconnects > 0) problems.push(`${report.reconnects} reconnects`);
  if (report.gaps > 0) problems.push(`${report.gaps} gaps`);
  if (report.framesDelivered === 0) problems.push('no frames delivered');
  // Every sequenced frame written goes to every browser of its workspace; frames still in flight when the
  // window closed (at most the slowest latency's worth) are not lost.
  const expected = report.framesSent * BROWSERS_PER_WORKSPACE;
  const inFlight = Math.ceil(report.deliveredFramesPerSecond * (report.latencyMs.max / 1000)) + WORKSPACES * BROWSERS_PER_WORKSPACE;
  if (expected - report.framesDelivered > inFlight) problems.push(`${expected - report.framesDelivered} of ${expected} frames not delivered (in flight at most ${inFlight})`);
  if (report.framesDelivered > expected + WORKSPACES * BROWSERS_PER_WORKSPACE) problems.push(`${report.framesDelivered - expected} frames delivered more than once`);
  if (before && target.counters) {
    await sleep(500);
    problems.push(...counterIncrease(before, await target.counters()).map((entry) => `gateway counted ${entry}`));
  }
  return { report, problems };
}

function roundLine(name: string, index: number, { report, problems }: RoundResult): string {
  const { latencyMs } = report;
  return (
    `  round ${index + 1} ${name.padEnd(9)} ${int(report.deliveredFramesPerSecond).padStart(7)} frames/s delivered ` +
    `(${int(report.framesSent / Math.max(report.durationSeconds, 1e-9))}/s sent)  p50 ${ms(latencyMs.p50)}  p99 ${ms(latencyMs.p99)}  max ${ms(latencyMs.max)}  ` +
    `[${report.framesDelivered} frames, ${latencyMs.samples} latency samples, load ${load()}]` +
    (problems.length > 0 ? `  INVALID: ${problems.join('; ')}` : '')
  );
}

async function idleMemory(gateway: Gateway, target: Target): Promise<string[]> {
  const lines: string[] = [];
  // Warm the paths (upgrades, sessions, JIT) so their one-time cost is not charged to the idle connections.
  await runLoad({ ...target.options(), stack: simulatorLoadStack(), companions: 2, browsers: 4, origin: ORIGIN, generateTurns: false, durationMs: 500 });
  await sleep(2_000);
  const companions = Math.min(WORKSPACES, IDLE_CONNECTIONS);
  const before = await probe(gateway);
  const started = Date.now();
  const run = await startLoad({
    ...target.options(),
    stack: simulatorLoadStack(),
    companions,
    browsers: IDLE_CONNECTIONS,
    origin: ORIGIN,
    generateTurns: false,
    connectConcurrency: 32,
    connectTimeoutMs: 120_000,
  });
  const openedSeconds = (Date.now() - started) / 1000;
  await sleep(3_000);
  const after = await probe(gateway);
  const report = await run.stop();
  const connections = IDLE_CONNECTIONS + companions;
  const perConnection = (kib: number) => (kib / IDLE_CONNECTIONS).toFixed(1);
  lines.push(
    `memory per idle connection: ${int(IDLE_CONNECTIONS)} browser sessions idle after session.ready over ${companions} workspaces (each with its idle Companion), opened in ${openedSeconds.toFixed(1)} s through RelayControl tickets`,
    `  gateway RSS       ${int(before.rssKiB)} KiB -> ${int(after.rssKiB)} KiB: ${perConnection(after.rssKiB - before.rssKiB)} KiB per idle browser connection`,
    `  gateway heap used ${int(before.heapUsedKiB)} KiB -> ${int(after.heapUsedKiB)} KiB after GC: ${perConnection(after.heapUsedKiB - before.heapUsedKiB)} KiB per idle browser connection`,
    `  gateway external  ${int(before.externalKiB)} KiB -> ${int(after.externalKiB)} KiB (buffers, the embedded database's WASM memory): ${perConnection(after.externalKiB - before.externalKiB)} KiB per idle browser connection`,
    `  (${connections} sockets in the gateway; the ${companions} Companions are charged to the browsers; errors ${report.errors}, reconnects ${report.reconnects})`,
  );
  if (report.errors > 0 || report.reconnects > 0) lines.push(`  INVALID: ${report.errorSamples.join('; ')}`);
  return lines;
}

// ------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const ulimit = spawnSync('sh', ['-c', 'ulimit -n; ulimit -Hn'], { encoding: 'utf8' }).stdout.trim().split('\n');
  console.log(`relay-gateway benchmark, node ${process.version}, ${cpus().length} cores, load average ${load()} at start, open files soft ${ulimit[0]} / hard ${ulimit[1]}`);
  const needed = IDLE_CONNECTIONS + WORKSPACES * (BROWSERS_PER_WORKSPACE + 1) + 256;
  if (Number(ulimit[0]) < needed) console.log(`  warning: ${needed} descriptors per process are needed; raise \`ulimit -n\` (children inherit it)`);

  const gateway = await startGateway();
  let forwarder: { child: Child; url: string } | undefined;
  let invalid = false;
  try {
    forwarder = await startForwarder(gateway);
    const forwarderUrl = forwarder.url;
    const gatewayTarget: Target = {
      name: 'gateway',
      options: () => ({ gatewayUrl: gateway.httpUrl, tls: { ca: gateway.ca, insecureDev: false }, relayControl: { address: gateway.grpcAddress, credential: new SecretText(gateway.credential), tls: null } }),
      counters: () => lossCounters(gateway),
    };
    const forwarderTarget: Target = {
      name: 'forwarder',
      options: () => ({ gatewayUrl: forwarderUrl, tls: { ca: gateway.ca, insecureDev: false }, provisioner: new ForwarderProvisioner(forwarderUrl) }),
    };
    console.log(`gateway: ${gateway.httpUrl} (pid ${gateway.child.process.pid}, embedded PGlite + local bus, development certificate); forwarder: ${forwarderUrl} (pid ${forwarder.child.process.pid}, ws only, same certificate)`);

    console.log(
      `throughput and latency: ${WORKSPACES} workspaces, each 1 Companion streaming generated turns (${TURNS.toolCalls} tool calls, ${TURNS.messageChars}-char message in ${TURNS.chunkChars}-char deltas every ${TURNS.chunkDelayMs} ms, ${TURN_INTERVAL_MS} ms between turns) and ${BROWSERS_PER_WORKSPACE} browsers; ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s each`,
    );
    const fresh = await probe(gateway);
    let streamed: { memory: MemoryProbe; retained: { frames: number; bytes: number | null } } | undefined;
    // Warm-up of both paths, not measured.
    const pids = [gateway.child.process.pid, forwarder.child.process.pid].filter((pid): pid is number => pid !== undefined);
    await round(gatewayTarget, 999);
    await round(forwarderTarget, 999);
    const results: Record<'gateway' | 'forwarder', RoundResult[]> = { gateway: [], forwarder: [] };
    for (let index = 0; index < ROUNDS; index += 1) {
      const order = index % 2 === 0 ? [gatewayTarget, forwarderTarget] : [forwarderTarget, gatewayTarget];
      for (const target of order) {
        await settle(pids);
        const result = await round(target, index + 1);
        results[target.name].push(result);
        console.log(roundLine(target.name, index, result));
        if (result.problems.length > 0) invalid = true;
        // After the round, outside its window: what streaming left in the gateway (the largest so far).
        if (target.name === 'gateway') {
          const memory = await probe(gateway);
          if (!streamed || memory.rssKiB > streamed.memory.rssKiB) streamed = { memory, retained: await retainedFrames(gateway) };
        }
      }
    }
    const summary = (name: 'gateway' | 'forwarder') => {
      const reports = results[name].map((result) => result.report);
      return {
        rate: median(reports.map((report) => report.deliveredFramesPerSecond)),
        p50: median(reports.map((report) => report.latencyMs.p50)),
        p99: median(reports.map((report) => report.latencyMs.p99)),
      };
    };
    const g = summary('gateway');
    const f = summary('forwarder');
    console.log(`  median    gateway   ${int(g.rate).padStart(7)} frames/s delivered  p50 ${ms(g.p50)}  p99 ${ms(g.p99)}`);
    console.log(`  median    forwarder ${int(f.rate).padStart(7)} frames/s delivered  p50 ${ms(f.p50)}  p99 ${ms(f.p99)}`);
    if (streamed) {
      const { memory, retained } = streamed;
      const per = (after: number, before: number) => ((after - before) / WORKSPACES).toFixed(0);
      console.log(
        `memory per streaming workspace: ${int((memory.rssKiB - fresh.rssKiB) / WORKSPACES)} KiB RSS (gateway RSS ${int(fresh.rssKiB)} KiB fresh -> ${int(memory.rssKiB)} KiB after ${WORKSPACES} workspaces streamed to ${BROWSERS_PER_WORKSPACE} browsers each)`,
      );
      console.log(
        `  per workspace: heap used ${per(memory.heapUsedKiB, fresh.heapUsedKiB)} KiB after GC (heap ${int(fresh.heapUsedKiB)} -> ${int(memory.heapUsedKiB)} KiB used, ${int(memory.heapTotalKiB)} KiB reserved), ` +
          `external ${per(memory.externalKiB, fresh.externalKiB)} KiB (${int(fresh.externalKiB)} -> ${int(memory.externalKiB)} KiB, array buffers ${int(memory.arrayBuffersKiB)} KiB), ` +
          `${int(retained.frames / WORKSPACES)} frames retained for catch-up (${int(retained.frames)} in all${retained.bytes === null ? '' : `, ${int(retained.bytes / 1024)} KiB`})`,
      );
    }
    // Last: closing thousands of sessions keeps the embedded database busy for minutes afterwards. Only the
    // difference is charged to the idle connections, so the rounds' retained frames do not count.
    if (IDLE_CONNECTIONS > 0) {
      const lines = await idleMemory(gateway, gatewayTarget);
      for (const line of lines) console.log(line);
      if (lines.some((line) => line.includes('INVALID'))) invalid = true;
    }
    console.log(`load average at end ${load()}`);
    const throughput = median(results.gateway.map((result, i) => result.report.deliveredFramesPerSecond / (results.forwarder[i]?.report.deliveredFramesPerSecond ?? Number.NaN)));
    const p99 = median(results.gateway.map((result, i) => result.report.latencyMs.p99 / (results.forwarder[i]?.report.latencyMs.p99 ?? Number.NaN)));
    if (invalid || !Number.isFinite(throughput) || !Number.isFinite(p99)) {
      console.log('the run was invalid (see INVALID above): no goal figure is printed');
      process.exitCode = 1;
      return;
    }
    console.log(`goal throughput-vs-forwarder: ${throughput.toFixed(2)}`);
    console.log(`goal p99-vs-forwarder: ${p99.toFixed(2)}`);
  } finally {
    await forwarder?.child.stop();
    await gateway.child.stop();
    rmSync(gateway.dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench:relay-gateway failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
