/**
 * `trustmesh console account <create|list|set-password|delete>`: runs the console's own account command
 * (apps/console/src/accounts/console-accounts.main.ts) as a child process, since an app never imports
 * another. The child inherits this process's stdin, so a piped password or the terminal for the hidden
 * prompt reach it directly and never pass through an argument; its output and exit status are this
 * command's (0 done, 1 refused, 2 usage or configuration).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { ROOT } from './child-app';
import type { CommandIo } from './command-io';

const ACCOUNTS_MAIN = join(ROOT, 'apps', 'console', 'src', 'accounts', 'console-accounts.main.ts');

export async function runConsoleAccount(args: readonly string[], io: CommandIo, env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', ACCOUNTS_MAIN, ...args], {
    cwd: process.cwd(),
    env: { ...env, TSX_TSCONFIG_PATH: env['TSX_TSCONFIG_PATH'] ?? join(ROOT, 'tsconfig.base.json') },
    stdio: [io.stdin === process.stdin ? 'inherit' : 'pipe', 'pipe', 'pipe'],
  });
  if (io.stdin !== process.stdin && child.stdin) io.stdin.pipe(child.stdin);
  child.stdout?.on('data', (chunk: Buffer) => io.stdout(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => io.stderr(chunk.toString('utf8')));
  return new Promise((resolvePromise) => {
    child.once('error', () => {
      io.stderr('trustmesh console account: could not start the console account command\n');
      resolvePromise(1);
    });
    child.once('close', (code) => resolvePromise(code ?? 1));
  });
}
