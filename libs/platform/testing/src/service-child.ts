/**
 * A service as its own process, as a deployment runs it: a test starts a script (a TypeScript entry point,
 * run with tsx) with nothing but environment variables, waits for the one JSON line `{"event":"ready",...}`
 * the script prints on stdout once it serves, and can then kill it (SIGKILL: a crash, nothing flushed) or
 * stop it (SIGTERM: a graceful shutdown), and start another on the same database.
 *
 * The child's stderr (its log lines) is handed to `onStderrLine` line by line, so a test can read every line
 * a service wrote (a privacy check) and name the last ones when it fails.
 *
 * Every child holds an IPC channel to the test process: it exits when the channel closes (the test process
 * died: no orphan servers), and `serveBrokerGateOverIpc` (child side) and `ServiceChild.brokerGate` (test
 * side) use it to cut a child's Kafka connections off and on again, since a broker gate (`createBrokerGate`)
 * only works inside the process whose client it gates.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import type { BrokerGate } from './broker-outage';

export interface ServiceChildOptions {
  /** The workspace root (the child's cwd; `tsconfig.base.json` there resolves `@trustmesh/*` imports). */
  workspaceRoot: string;
  /** The child's environment, added to this process's. */
  env: Record<string, string>;
  /** Every line the child writes to stderr. */
  onStderrLine?: (line: string) => void;
}

export interface ServiceChild<Ready> {
  readonly process: ChildProcess;
  /** The ready line's fields (without `event`). */
  readonly ready: Ready;
  /** The child's last stderr output (for failure messages). */
  stderr(): string;
  /** SIGKILL: no shutdown, nothing flushed. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful shutdown); SIGKILL after `graceMs` (30 s). Resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** The child's broker gate, when its script calls `serveBrokerGateOverIpc`. */
  readonly brokerGate: RemoteBrokerGate;
}

export interface RemoteBrokerGate {
  /** Resets every Kafka connection of the child and refuses new ones; resolves once applied. */
  down(): Promise<void>;
  /** Lets the child's Kafka connections through again; resolves once applied. */
  up(): Promise<void>;
}

const STDERR_KEPT = 8_000;
const READY_EVENT = 'ready';

interface GateCommand {
  brokerGate: 'down' | 'up';
}

/** Starts `script` and resolves once it printed its ready line; rejects if it exits first. */
export function startServiceChild<Ready extends object>(script: string, options: ServiceChildOptions): Promise<ServiceChild<Ready>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: options.workspaceRoot,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(options.workspaceRoot, 'tsconfig.base.json'), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stderr = '';
  let partialErr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stderr = (stderr + text).slice(-STDERR_KEPT);
    const lines = (partialErr + text).split('\n');
    partialErr = lines.pop() ?? '';
    for (const line of lines) options.onStderrLine?.(line);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const end = async (signal: NodeJS.Signals, graceMs: number) => {
    if (gone()) return;
    child.kill(signal);
    if (signal === 'SIGTERM') setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
    await exited;
  };
  const command = (brokerGate: GateCommand['brokerGate']) =>
    new Promise<void>((resolve, reject) => {
      if (!child.connected) return reject(new Error('the child is gone'));
      const died = () => reject(new Error(`the child exited before its broker gate went ${brokerGate}`));
      const answered = (message: unknown) => {
        if ((message as Partial<GateCommand>)?.brokerGate !== brokerGate) return;
        child.off('message', answered);
        child.off('exit', died);
        resolve();
      };
      child.on('message', answered);
      child.once('exit', died);
      child.send({ brokerGate } satisfies GateCommand);
    });

  return new Promise((resolve, reject) => {
    let partial = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{"event"')) continue;
        const { event, ...ready } = JSON.parse(line) as { event: string } & Ready;
        if (event !== READY_EVENT) continue;
        resolve({
          process: child,
          ready: ready as unknown as Ready,
          stderr: () => stderr,
          kill: () => end('SIGKILL', 0),
          stop: (graceMs = 30_000) => end('SIGTERM', graceMs),
          brokerGate: { down: () => command('down'), up: () => command('up') },
        });
      }
    });
    child.once('exit', (code, signal) => reject(new Error(`${script} exited (${code ?? signal}) before it was ready:\n${stderr.slice(-2_000)}`)));
  });
}

/**
 * Child side: prints the ready line a `startServiceChild` caller waits for, and exits when the test process
 * goes (its IPC channel closes) rather than serve on as an orphan.
 */
export function announceReady(fields: Record<string, unknown>): void {
  process.once('disconnect', () => process.exit(1));
  process.stdout.write(`${JSON.stringify({ event: READY_EVENT, ...fields })}\n`);
}

/** Child side: applies the parent's `brokerGate.down()` / `up()` to `gate` and confirms each. */
export function serveBrokerGateOverIpc(gate: BrokerGate): void {
  process.on('message', (message: unknown) => {
    const action = (message as Partial<GateCommand>)?.brokerGate;
    if (action === 'down') gate.down();
    else if (action === 'up') gate.up();
    else return;
    process.send?.({ brokerGate: action } satisfies GateCommand);
  });
}
