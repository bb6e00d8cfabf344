/**
 * `nx serve card-registry`: runs the card registry with the configuration in the environment
 * (README.md), until SIGINT or SIGTERM, then shuts down gracefully. A bad configuration stops it with a
 * message naming each variable at fault (exit code 78, EX_CONFIG).
 */
import { ConfigError } from '@trustmesh/platform-config';

import { startCardRegistry } from './card-registry.bootstrap';

async function main(): Promise<void> {
  let registry: Awaited<ReturnType<typeof startCardRegistry>>;
  try {
    registry = await startCardRegistry(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`card-registry: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`card-registry: ${signal} received, shutting down\n`);
    registry.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  // The platform's errors (DATABASE_UNREACHABLE, MIGRATIONS_PENDING, …) carry actionable messages without secrets.
  process.stderr.write(`card-registry: failed to start: ${error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error'}\n`);
  process.exit(1);
});
