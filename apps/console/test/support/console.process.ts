/**
 * One console as its own process, as `nx serve console` runs it: `startConsole(process.env)`, configured by
 * nothing but the environment the test passes; log lines go to stderr, one ready line with its addresses to
 * stdout. SIGTERM shuts it down gracefully.
 */
import { announceReady } from '@trustmesh/platform-testing';

import { startConsole } from '../../src/console.bootstrap';

async function main(): Promise<void> {
  const console_ = await startConsole(process.env, { print: () => undefined, writeLog: (line) => process.stderr.write(`${line}\n`) });
  process.once('SIGTERM', () => {
    void console_.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  announceReady({ httpUrl: console_.httpUrl, publicOrigin: console_.publicOrigin, operatorUrl: console_.operatorUrl });
}

main().catch((error: unknown) => {
  process.stderr.write(`console process failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
