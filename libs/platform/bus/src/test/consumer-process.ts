/**
 * Starts `consumer.process.ts` as a child process and follows what it reports, for the specs that kill
 * a consumer outright or stop it with a signal.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const workspaceRoot = join(__dirname, '..', '..', '..', '..', '..');

export interface ConsumerProcess {
  /** Events the child's handler finished (before their commit), in order. */
  handled(): string[];
  /** The event its handler hangs on, once it does. */
  hanging(): string | undefined;
  joined(): boolean;
  kill(signal: NodeJS.Signals): void;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  stderr(): string;
}

/** `env` names the bus (BUS, KAFKA_BROKERS or DATABASE_URL) and the subscription (TOPIC, GROUP, …). */
export function startConsumerProcess(env: Record<string, string>): ConsumerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'consumer.process.ts')], {
    cwd: workspaceRoot,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(workspaceRoot, 'tsconfig.base.json'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Array<{ event: string; id?: string }> = [];
  let partial = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as { event: string; id?: string });
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return {
    handled: () => events.filter(({ event }) => event === 'handled').map(({ id }) => id!),
    hanging: () => events.find(({ event }) => event === 'hanging')?.id,
    joined: () => events.some(({ event }) => event === 'joined'),
    kill: (signal) => void child.kill(signal),
    exit,
    stderr: () => stderr,
  };
}
