/**
 * `npm run bench:shield` (issue 9, Performance): the Shield's analysis and its consult path, each against a
 * baseline measured in the same run, on the labelled scenario set (`tools/shield-scenarios`).
 *
 * - analyze: `analyzeCase` of `@trustmesh/shield-analysis` in this process, over every scenario's request
 *   (the merged case, the consult input, earlier consultations, counterparty knowledge, as the scorer builds
 *   it), round-robin, each call timed.
 * - vard: `@andersmyrmel/vard`'s default check (`createVard().safeParse`, the moderate preset) over the same
 *   consult messages, the same way. It only pattern-matches one string for injection phrases; the analysis
 *   reads the whole case (claims against evidence and policies, tactics, disposition), so the goal asks only
 *   for a fifth of vard's rate: `goal analyze-vs-vard` = analyses/s over vard checks/s. The two alternate in
 *   slices of 50 ms, so a burst of load on the shared machine hits both.
 * - consult: the real Shield analyzer (`apps/shield-analyzer/src/main.ts`) as a child process, so it never
 *   shares an event loop with the client, on a fresh temp data dir (embedded PGlite, the local bus, no model:
 *   SHIELD_MODEL_PROVIDER=none). The client is the generated grpc-js client of `@trustmesh/contracts` over
 *   loopback. Per round, every scenario's case is opened (`OpenCase` with the case's own fields and items),
 *   then consulted (`Consult` with its consult input: validation, load from the event store, merge,
 *   counterparty lookup, analysis, append), a few calls in flight; consults/s is the consults over the
 *   consult phase's wall time, and each consult's latency is timed at the client. `goal consult-vs-analyze`
 *   = consults/s over the in-process analyses/s of the same round. Consulting a freshly opened case means
 *   the app analyses it without the scenario's earlier consultations (6 of the scenarios have some): the
 *   work is otherwise the same.
 * - Each round measures in process (analyze and vard) and the consults, alternating which goes first, each
 *   once the app is quiet (its projection and outbox work off a consult round for a while after it); each
 *   goal is the median of the per-round ratios. A warm-up round comes first, unmeasured.
 * - The app's CPU time per consult and per open, from /proc, split into its event loop and its other threads
 *   (the embedded database's worker above all): each phase is counted until the app is quiet again, so the
 *   outbox, bus and projection work it leaves is included, less what the idle app uses over that span (its
 *   polling, measured before the rounds). What a consult costs, however busy the shared machine is.
 * - After the rounds, the app's read model (`ListCases`, one operator account per round) must list every
 *   case opened with its latest consultation: the projection kept up.
 *
 * A consult or open that fails, or a read model that does not catch up, makes the run invalid: no goal
 * figure is printed and the exit status is 1.
 *
 * Settings (environment): BENCH_ROUNDS (5), BENCH_ROUND_SECONDS (2, for analyze and vard), BENCH_CONSULT_PASSES
 * (2: passes over the scenario set per consult round, each on new cases), BENCH_CONSULT_CONCURRENCY (4, calls
 * in flight), BENCH_SHIELD_CPU_PROF=<dir> (node --cpu-prof on the app child; written when it exits).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import * as grpc from '@grpc/grpc-js';
import { shieldAnalyzerV1GrpcJs as S } from '@trustmesh/contracts';
import { analyzeCase } from '@trustmesh/shield-analysis';
import type { AnalysisRequest, CaseInput, ShieldCase } from '@trustmesh/shield-records';

import { loadScenarios } from '../shield-scenarios/scenario.loader';
import type { LoadedScenario } from '../shield-scenarios/scenario.types';
import { load, median, setting, sleep } from './bench-support';

const ROOT = join(__dirname, '..', '..');

const ROUNDS = setting('BENCH_ROUNDS', 5, 1);
const ROUND_MS = setting('BENCH_ROUND_SECONDS', 2, 1) * 1000;
const CONSULT_PASSES = setting('BENCH_CONSULT_PASSES', 2, 1);
const CONCURRENCY = setting('BENCH_CONSULT_CONCURRENCY', 4, 1);
const CPU_PROF_DIR = process.env['BENCH_SHIELD_CPU_PROF'];
/** The read model lists at most 500 cases per account: each round's account stays below it. */
const LIST_LIMIT = 500;
const CALL_DEADLINE_MS = 60_000;
/** Milliseconds per clock tick, the unit of /proc's CPU times. */
const TICK_MS = 1000 / (Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
const int = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => (value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(2)} ms`);

/** One measurement: operations over wall time, and every operation's own duration. */
interface Sample {
  perSecond: number;
  latencies: number[];
}

function latencySummary(samples: Sample[]): string {
  const all = samples.flatMap((sample) => sample.latencies).sort((a, b) => a - b);
  return `p50 ${ms(percentile(all, 0.5))}  p99 ${ms(percentile(all, 0.99))}  (${int(all.length)} ops)`;
}

// ------------------------------------------------------------------------------------------- in process

/** How long one candidate runs before the other takes over: short, so a burst of load hits both. */
const SLICE_MS = 50;

/** A call of `operation` on the next of `inputs`, round-robin. */
function roundRobin<T>(inputs: readonly T[], operation: (input: T) => unknown): () => unknown {
  let next = 0;
  return () => operation(inputs[next++ % inputs.length] as T);
}

/**
 * Runs the candidates in alternating slices of `SLICE_MS` until each has run `ROUND_MS` in all, every call
 * timed. A candidate's rate is its calls over its own slices' time, so the machine's noise during the round
 * falls on each in proportion to its running time.
 */
function alternate(candidates: readonly (() => unknown)[]): Sample[] {
  const state = candidates.map(() => ({ millis: 0, latencies: [] as number[] }));
  while (state.some((entry) => entry.millis < ROUND_MS)) {
    candidates.forEach((call, index) => {
      const entry = state[index] as (typeof state)[number];
      const start = performance.now();
      let now = start;
      while (now - start < SLICE_MS) {
        const before = now;
        call();
        now = performance.now();
        entry.latencies.push(now - before);
      }
      entry.millis += now - start;
    });
  }
  return state.map(({ millis, latencies }) => ({ perSecond: (latencies.length / millis) * 1000, latencies }));
}

/** The analyzer's request for a scenario, as the scorer builds it. */
function analysisRequest(scenario: LoadedScenario): AnalysisRequest {
  return {
    caseRecord: scenario.case,
    consult: scenario.consult,
    priorConsultations: scenario.priorConsultations ?? [],
    ...(scenario.counterparty ? { counterparty: scenario.counterparty } : {}),
  };
}

type VardCheck = (message: string) => { safe: boolean };

/** vard is ESM-only: imported at run time. Its default builder is the moderate preset. */
async function loadVard(): Promise<VardCheck> {
  const { createVard } = (await import('@andersmyrmel/vard')) as typeof import('@andersmyrmel/vard');
  const check = createVard();
  return (message) => check.safeParse(message);
}

// ------------------------------------------------------------------------------------------- the app

interface App {
  child: ChildProcess;
  grpcAddress: string;
  /** Stops the app and removes its data dir. */
  stop(): Promise<void>;
}

interface Operator {
  accountId: string;
  token: string;
}

/** The app on a fresh data dir with one operator account per round (credentials passed as SHA-256 only). */
async function startApp(operators: Operator[]): Promise<App> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-shield-'));
  const flags = ['--import', 'tsx'];
  if (CPU_PROF_DIR) flags.unshift('--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`);
  const child = spawn(process.execPath, [...flags, 'apps/shield-analyzer/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      TSX_TSCONFIG_PATH: 'tsconfig.base.json',
      TRUSTMESH_DATA_DIR: dataDir,
      SHIELD_HTTP_PORT: '0',
      SHIELD_GRPC_PORT: '0',
      SHIELD_OPERATOR_PORT: 'off',
      SHIELD_MODEL_PROVIDER: 'none',
      SHIELD_OPERATOR_CREDENTIALS: operators.map(({ accountId, token }) => `${accountId}:${createHash('sha256').update(token).digest('hex')}`).join(','),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  // The head of stdout (start-up lines) and the tail of stderr: a log line per call must not grow this process.
  child.stdout?.on('data', (chunk: Buffer) => {
    if (output.stdout.length < 64 * 1024) output.stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr = (output.stderr + chunk.toString('utf8')).slice(-16 * 1024)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(30_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const listening = () => output.stdout.split('\n').find((line) => line.includes('"msg":"shield analyzer listening"'));
  const deadline = Date.now() + 120_000;
  while (!listening() && child.exitCode === null) {
    if (Date.now() > deadline) {
      await stop();
      throw new Error('timed out waiting for the shield analyzer to listen');
    }
    await sleep(50);
  }
  const line = listening();
  if (!line) {
    await stop();
    throw new Error(`the shield analyzer exited: ${output.stderr.slice(0, 2000)}`);
  }
  const { grpc: grpcAddress } = JSON.parse(line) as { grpc: string };
  return { child, grpcAddress, stop };
}

/** CPU milliseconds the app's event loop and its other threads used, beyond what the idle app uses. */
interface CpuCost {
  loop: number;
  others: number;
}

/**
 * Runs `work`, then waits until the app is quiet (what the work left behind, such as outbox, bus and
 * projection work, is part of its cost), and returns the app's CPU time over that span less the idle app's
 * (`idle`, per millisecond: its bus and outbox polling).
 */
async function appCpu<T>(pid: number, idle: CpuCost, work: () => Promise<T>): Promise<{ value: T; cost: CpuCost }> {
  const before = threadTicks(pid);
  const start = performance.now();
  const value = await work();
  await settle(pid);
  const after = threadTicks(pid);
  const elapsed = performance.now() - start;
  return {
    value,
    cost: { loop: (after.loop - before.loop) * TICK_MS - idle.loop * elapsed, others: (after.others - before.others) * TICK_MS - idle.others * elapsed },
  };
}

/** The idle app's CPU milliseconds per millisecond, by thread group, over `millis`. */
async function idleCpu(pid: number, millis: number): Promise<CpuCost> {
  await settle(pid);
  const before = threadTicks(pid);
  await sleep(millis);
  const after = threadTicks(pid);
  return { loop: ((after.loop - before.loop) * TICK_MS) / millis, others: ((after.others - before.others) * TICK_MS) / millis };
}

/** CPU time (user + system) used, in clock ticks (`/proc/<pid>/stat` or a thread's, fields 14 and 15). */
function cpuTicks(path: string): number {
  const fields = readFileSync(`${path}/stat`, 'utf8').split(') ').pop()?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * The app's CPU time split by thread: its event loop (the thread whose id is the process id) and every other
 * thread together (the embedded database's worker, garbage collection, the loader's worker), in ticks.
 */
function threadTicks(pid: number): { loop: number; others: number } {
  let loop = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ticks = cpuTicks(`/proc/${pid}/task/${tid}`);
      if (tid === String(pid)) loop += ticks;
      else others += ticks;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { loop, others };
}

/**
 * Waits (at most 60 s) until the app uses at most 10% of a core over half a second: after a consult round its
 * outbox and projection work for a while, which must not be charged to the next measurement. An idle app
 * still polls its embedded bus and outbox, so quiet is not zero.
 */
async function settle(pid: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  let before = cpuTicks(`/proc/${pid}`);
  while (Date.now() < deadline) {
    await sleep(500);
    const now = cpuTicks(`/proc/${pid}`);
    if (now - before <= 5) return;
    before = now;
  }
  console.log('  (the app did not go quiet within 60 s; measuring anyway)');
}

function unary<Req, Res>(
  method: (request: Req, metadata: grpc.Metadata, options: Partial<grpc.CallOptions>, callback: (error: grpc.ServiceError | null, response: Res) => void) => grpc.ClientUnaryCall,
  request: Req,
  token: string,
): Promise<Res> {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve, reject) => {
    method(request, metadata, { deadline: Date.now() + CALL_DEADLINE_MS }, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** Runs `task` over `items` with at most `CONCURRENCY` in flight. */
async function pooled<T>(items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

/** The case input that opens a case equal to the scenario's merged case (same fields, same items and ids). */
function caseInputOf(record: ShieldCase): CaseInput {
  return {
    agentId: record.agentId,
    title: record.title,
    goal: record.goal,
    brief: record.brief,
    ...(record.proposedAction !== undefined ? { proposedAction: record.proposedAction } : {}),
    counterparty: record.counterparty,
    facts: record.facts,
    evidence: record.evidence,
    policies: record.policies,
  };
}

interface ConsultRound {
  sample: Sample;
  openSample: Sample;
  /** The app's CPU per open and per consult. */
  openCost: CpuCost;
  consultCost: CpuCost;
  /** caseId -> the consultation id its consult returned, for the read-model check. */
  consulted: Map<string, string>;
  failures: string[];
}

async function consultRound(client: S.ShieldAnalyzerClient, app: { pid: number; idle: CpuCost }, operator: Operator, scenarios: readonly LoadedScenario[]): Promise<ConsultRound> {
  const failures: string[] = [];
  const describe = (what: string, id: string, error: unknown) => `${what} ${id}: ${(error as grpc.ServiceError).code ?? ''} ${(error as Error).message}`;
  const work = Array.from({ length: CONSULT_PASSES }, () => scenarios).flat();
  const opened: { scenario: LoadedScenario; caseId: string }[] = [];
  const openLatencies: number[] = [];
  let openMillis = 0;
  const opens = await appCpu(app.pid, app.idle, () => {
    const start = performance.now();
    return pooled(work, async (scenario) => {
      const before = performance.now();
      try {
        const response = await unary(client.openCase.bind(client), { caseInputJson: JSON.stringify(caseInputOf(scenario.case)) }, operator.token);
        openLatencies.push(performance.now() - before);
        opened.push({ scenario, caseId: (JSON.parse(response.caseRecordJson) as ShieldCase).caseId });
      } catch (error) {
        failures.push(describe('OpenCase', scenario.id, error));
      }
    }).finally(() => (openMillis = performance.now() - start));
  });

  const consulted = new Map<string, string>();
  const latencies: number[] = [];
  let millis = 0;
  const consults = await appCpu(app.pid, app.idle, () => {
    const start = performance.now();
    return pooled(opened, async ({ scenario, caseId }) => {
      const before = performance.now();
      try {
        const response = await unary(client.consult.bind(client), { caseId, consultInputJson: JSON.stringify(scenario.consult) }, operator.token);
        latencies.push(performance.now() - before);
        consulted.set(caseId, (JSON.parse(response.consultationJson) as { consultationId: string }).consultationId);
      } catch (error) {
        failures.push(describe('Consult', scenario.id, error));
      }
    }).finally(() => (millis = performance.now() - start));
  });
  const per = (cost: CpuCost, count: number): CpuCost => ({ loop: cost.loop / Math.max(count, 1), others: cost.others / Math.max(count, 1) });
  return {
    sample: { perSecond: (latencies.length / millis) * 1000, latencies },
    openSample: { perSecond: (openLatencies.length / openMillis) * 1000, latencies: openLatencies },
    openCost: per(opens.cost, opened.length),
    consultCost: per(consults.cost, consulted.size),
    consulted,
    failures,
  };
}

/** Polls `ListCases` (the read model) until every case consulted for `operator` shows that consultation. */
async function readModelCaughtUp(client: S.ShieldAnalyzerClient, operator: Operator, consulted: Map<string, string>, timeoutMs: number): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  let missing = consulted.size;
  while (Date.now() < deadline) {
    const listed = await unary(client.listCases.bind(client), { status: '', limit: 0, cursor: '' }, operator.token);
    const latest = new Map(listed.casesJson.map((json) => JSON.parse(json) as ShieldCase).map((record) => [record.caseId, record.latestConsultationId]));
    missing = [...consulted].filter(([caseId, consultationId]) => latest.get(caseId) !== consultationId).length;
    if (missing === 0) return null;
    await sleep(250);
  }
  return `${missing} of ${consulted.size} cases of ${operator.accountId} not in the read model with their consultation after ${timeoutMs / 1000} s`;
}

// ------------------------------------------------------------------------------------------- main

type Kind = 'analyze' | 'vard' | 'consult';

async function main(): Promise<void> {
  console.log(`shield benchmark, node ${process.version}, ${cpus().length} cores, load average ${load()} at start`);
  const scenarios = loadScenarios();
  const requests = scenarios.map(analysisRequest);
  const messages = scenarios.map((scenario) => scenario.consult.message);
  const vard = await loadVard();
  if (CONSULT_PASSES * scenarios.length > LIST_LIMIT) throw new Error(`BENCH_CONSULT_PASSES × ${scenarios.length} scenarios must stay within the read model's list of ${LIST_LIMIT}`);

  const operators: Operator[] = Array.from({ length: ROUNDS + 1 }, (_, index) => ({
    accountId: index === 0 ? 'bench-warm-up' : `bench-round-${index}`,
    token: randomBytes(24).toString('base64url'),
  }));
  const app = await startApp(operators);
  const pid = app.child.pid as number;
  const client = new S.ShieldAnalyzerClient(app.grpcAddress, grpc.credentials.createInsecure());
  try {
    console.log(`${scenarios.length} labelled scenarios; app: gRPC ${app.grpcAddress} (pid ${pid}, embedded PGlite + local bus, SHIELD_MODEL_PROVIDER=none); ${ROUNDS} rounds`);
    console.log(`  analyze and vard: ${ROUND_MS / 1000} s each per round, in alternating ${SLICE_MS} ms slices; consult: ${CONSULT_PASSES} pass(es) over the set per round on new cases, ${CONCURRENCY} in flight`);
    const failures: string[] = [];
    const consultedByOperator: { operator: Operator; consulted: Map<string, string> }[] = [];

    const analyzeNext = roundRobin(requests, analyzeCase);
    const checkNext = roundRobin(messages, vard);
    const inProcess = () => alternate([analyzeNext, checkNext]);
    // Warm-up (JIT, connections, the app's first appends), not measured.
    inProcess();
    const idle = await idleCpu(pid, 3_000);
    const warm = await consultRound(client, { pid, idle }, operators[0] as Operator, scenarios);
    failures.push(...warm.failures);
    consultedByOperator.push({ operator: operators[0] as Operator, consulted: warm.consulted });

    const samples: Record<Kind, Sample[]> = { analyze: [], vard: [], consult: [] };
    const opens: Sample[] = [];
    const openCosts: CpuCost[] = [];
    const consultCosts: CpuCost[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate which goes first: in process (analyze and vard in alternating slices), or the consults.
      for (const part of round % 2 === 0 ? ['in-process', 'consult'] : ['consult', 'in-process']) {
        await settle(pid);
        if (part === 'in-process') {
          const [analyze, checks] = inProcess() as [Sample, Sample];
          samples.analyze.push(analyze);
          samples.vard.push(checks);
          continue;
        }
        const operator = operators[round + 1] as Operator;
        const result = await consultRound(client, { pid, idle }, operator, scenarios);
        openCosts.push(result.openCost);
        consultCosts.push(result.consultCost);
        samples.consult.push(result.sample);
        opens.push(result.openSample);
        failures.push(...result.failures);
        consultedByOperator.push({ operator, consulted: result.consulted });
      }
      const figures = (['analyze', 'vard', 'consult'] as const).map((kind) => `${kind} ${int((samples[kind][round] as Sample).perSecond)}/s`);
      console.log(`  round ${round + 1}: ${figures.join(', ')}  [load ${load()}]`);
    }

    const rate = (kind: Kind) => median(samples[kind].map((sample) => sample.perSecond));
    console.log(`analyze vs vard, in process, per round's median:`);
    console.log(`  baseline vard safeParse:    ${int(rate('vard')).padStart(7)} checks/s     ${latencySummary(samples.vard)}`);
    console.log(`  analyzeCase:                ${int(rate('analyze')).padStart(7)} analyses/s   ${latencySummary(samples.analyze)}`);
    console.log(`consult through gRPC (open and consult a new case per scenario; latency at the client):`);
    console.log(`  baseline in-process analyzeCase: ${int(rate('analyze')).padStart(5)} analyses/s   ${latencySummary(samples.analyze)}`);
    console.log(`  Consult:                         ${rate('consult').toFixed(1).padStart(5)} consults/s   ${latencySummary(samples.consult)}`);
    console.log(`  (OpenCase, not in the goal:      ${median(opens.map((sample) => sample.perSecond)).toFixed(1).padStart(5)} opens/s      ${latencySummary(opens)})`);

    const cost = (costs: CpuCost[]) =>
      `event loop ${median(costs.map((entry) => entry.loop)).toFixed(1)} ms, other threads (embedded database, GC) ${median(costs.map((entry) => entry.others)).toFixed(1)} ms`;
    console.log(`  app CPU beyond idle, counted until the app is quiet again (outbox, bus and projection included):`);
    console.log(`    per consult: ${cost(consultCosts)}`);
    console.log(`    per open:    ${cost(openCosts)}`);
    console.log(`    idle app:    event loop ${(idle.loop * 100).toFixed(1)}%, other threads ${(idle.others * 100).toFixed(1)}% of a core`);
    const caughtUpStart = performance.now();
    const lagging: string[] = [];
    for (const { operator, consulted } of consultedByOperator) {
      const problem = await readModelCaughtUp(client, operator, consulted, 120_000);
      if (problem) lagging.push(problem);
    }
    failures.push(...lagging);
    const cases = consultedByOperator.reduce((sum, { consulted }) => sum + consulted.size, 0);
    if (lagging.length === 0) console.log(`  read model: ListCases showed all ${cases} consulted cases with their latest consultation ${((performance.now() - caughtUpStart) / 1000).toFixed(1)} s after the last round`);
    console.log(`load average at end ${load()}`);

    const analyzeVsVard = median(samples.analyze.map((sample, i) => sample.perSecond / (samples.vard[i]?.perSecond ?? Number.NaN)));
    const consultVsAnalyze = median(samples.consult.map((sample, i) => sample.perSecond / (samples.analyze[i]?.perSecond ?? Number.NaN)));
    if (failures.length > 0 || !Number.isFinite(analyzeVsVard) || !Number.isFinite(consultVsAnalyze)) {
      for (const failure of failures.slice(0, 10)) console.log(`  INVALID: ${failure}`);
      console.log(`the run was invalid (${failures.length} failure(s)): no goal figure is printed`);
      process.exitCode = 1;
      return;
    }
    console.log(`goal analyze-vs-vard: ${analyzeVsVard.toFixed(2)}`);
    console.log(`goal consult-vs-analyze: ${consultVsAnalyze.toFixed(2)}`);
  } finally {
    client.close();
    await app.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:shield failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
