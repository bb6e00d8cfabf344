/**
 * Entry point of the companion simulator (`nx serve companion-simulator` = `main.ts run`). See
 * cli/simulator-cli.ts for the commands and README.md for the configuration.
 */
import { runSimulatorCli } from './cli/simulator-cli';

export function runFromProcess(): void {
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  runSimulatorCli(
    process.argv.slice(2),
    {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      stopRequested: () => stopRequested,
    },
    process.env,
  ).then(
    (code) => {
      // Everything was closed; exit now rather than wait for idle keep-alive sockets of clients.
      process.stdout.write('', () => process.exit(code));
    },
    (error: unknown) => {
      process.stderr.write(`companion-simulator: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(70);
    },
  );
}

if (require.main === module) runFromProcess();
