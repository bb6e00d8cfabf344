/**
 * `nx serve relay-gateway`: runs the gateway with the configuration in the environment (README.md), until
 * SIGINT or SIGTERM, then shuts down gracefully. A bad configuration stops it with a message naming each
 * variable at fault (exit code 78, EX_CONFIG).
 */
import { ConfigError } from '@trustmesh/platform-config';

import { startRelayGateway } from './relay-gateway.bootstrap';
import { TlsConfigError } from './tls/tls-material';

async function main(): Promise<void> {
  // The handlers go in before the start: the gateway announces its ports while it is still starting (on
  // Kafka the start waits for the consumer groups to join, for as long as no broker answers), and a signal
  // that arrives then gives the start up at once, closing what it opened, instead of waiting for it.
  const startAbandoned = new AbortController();
  let stop: (signal: string) => void = (signal) => {
    if (startAbandoned.signal.aborted) return;
    process.stderr.write(`relay-gateway: ${signal} received while starting, stopping\n`);
    startAbandoned.abort();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  let gateway: Awaited<ReturnType<typeof startRelayGateway>>;
  try {
    gateway = await startRelayGateway(process.env, { signal: startAbandoned.signal });
  } catch (error) {
    if (startAbandoned.signal.aborted) process.exit(0);
    if (error instanceof ConfigError || error instanceof TlsConfigError) {
      process.stderr.write(`relay-gateway: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  let stopping = false;
  stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`relay-gateway: ${signal} received, shutting down\n`);
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
}

main().catch((error: unknown) => {
  // Operator-facing: the platform's errors (DATABASE_UNREACHABLE, MIGRATIONS_PENDING, …) carry actionable
  // messages without secrets.
  process.stderr.write(`relay-gateway: failed to start: ${error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error'}\n`);
  process.exit(1);
});
