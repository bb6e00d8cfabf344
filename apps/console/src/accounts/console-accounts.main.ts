/**
 * The process `trustmesh console account …` runs (apps/cli/src/console-account.command.ts starts it: an app
 * never imports another): `runConsoleAccounts` on this process's arguments, stdio and environment.
 */
import { runConsoleAccounts } from './console-accounts.command';

runConsoleAccounts(process.argv.slice(2), { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), stdin: process.stdin }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // No stack and no error text from the database driver: it may hold a connection string.
    process.stderr.write(`trustmesh console account: internal error (${error instanceof Error ? error.name : 'unknown'})\n`);
    process.exitCode = 70;
  },
);
