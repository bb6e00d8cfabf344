/**
 * `trustmesh relay serve`: one relay gateway replica in the foreground, configured by the environment
 * (apps/relay-gateway/README.md), as many at once from one checkout as there are terminals.
 *
 * Why not `nx serve relay-gateway`: Nx runs a given task once per workspace at a time, so a second
 * `nx serve` from the same checkout waits for the first to end, and distributed mode needs several
 * replicas. This command runs the gateway's own entry point (`apps/relay-gateway/src/main.ts` through tsx,
 * as `nx serve` does) as a child process with this process's environment and stdio, passes SIGINT, SIGTERM
 * and SIGHUP on to it, and exits with its exit status (78 for a configuration error, 0 after a clean
 * shutdown). An app never imports another: the gateway runs as its own process.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { join } from 'node:path';

import { UsageError, type CommandIo } from './command-io';

type Env = Readonly<Record<string, string | undefined>>;

const ROOT = join(__dirname, '..', '..', '..');
const GATEWAY_MAIN = join(ROOT, 'apps', 'relay-gateway', 'src', 'main.ts');
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function runRelayServe(args: readonly string[], io: CommandIo, env: Env = process.env): Promise<number> {
  if (args.length > 0) {
    throw new UsageError(`relay serve: takes no arguments (configure it with environment variables, see apps/relay-gateway/README.md); got ${JSON.stringify((args[0] ?? '').slice(0, 64))}`);
  }
  const child = spawn(process.execPath, ['--import', 'tsx', GATEWAY_MAIN], {
    cwd: ROOT,
    env: { ...env, TSX_TSCONFIG_PATH: env['TSX_TSCONFIG_PATH'] ?? join(ROOT, 'tsconfig.base.json') },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of SIGNALS) process.on(signal, forward);
  try {
    return await new Promise<number>((resolve) => {
      child.once('error', () => {
        io.stderr('trustmesh: relay serve: could not start the gateway process\n');
        resolve(1);
      });
      // A gateway ended by a signal it did not handle reports 128 + the signal number, as a shell would.
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1)));
    });
  } finally {
    for (const signal of SIGNALS) process.off(signal, forward);
  }
}
