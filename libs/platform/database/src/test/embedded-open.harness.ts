/**
 * Starts `embedded-open.process.ts` in a process of its own and follows what it reports: the second
 * process of the data directory lock's specs.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const workspaceRoot = join(__dirname, '..', '..', '..', '..', '..');

export interface OpeningProcess {
  readonly pid: number;
  /** Resolves with the first report: `opened` (with its resident memory) or `refused` (with its code). */
  readonly outcome: Promise<{ event: string; code?: string; rssMiB?: number }>;
  /** Ends stdin: an opened database is closed, then the process exits. */
  release(): Promise<void>;
  kill(): void;
}

export function startOpeningProcess(dataDir: string): OpeningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'embedded-open.process.ts')], {
    cwd: workspaceRoot,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(workspaceRoot, 'tsconfig.base.json'), DATA_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const outcome = new Promise<{ event: string; code?: string; rssMiB?: number }>((resolve, reject) => {
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      const first = lines.find((line) => line.trim());
      if (first) resolve(JSON.parse(first) as { event: string; code?: string; rssMiB?: number });
    });
    child.once('exit', (code) => reject(new Error(`the opening process exited (${code}) without reporting: ${stderr.slice(-2000)}`)));
  });
  return {
    pid: child.pid ?? 0,
    outcome,
    release: async () => {
      child.stdin.end();
      await exited;
    },
    kill: () => void child.kill('SIGKILL'),
  };
}
