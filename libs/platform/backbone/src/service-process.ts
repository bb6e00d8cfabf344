/**
 * The `main.ts` of a platform service: starts it with the process environment, runs it until SIGINT or
 * SIGTERM, then closes it gracefully. A bad configuration (`ConfigError`) stops it with the message naming
 * each variable at fault and exit code 78 (EX_CONFIG); any other startup failure exits 1.
 */
import { ConfigError, type Env } from '@trustmesh/platform-config';

export interface RunningService {
  close(): Promise<void>;
}

/** Exit code of a configuration error (sysexits.h `EX_CONFIG`). */
export const EXIT_CONFIG = 78;

export function runServiceProcess(name: string, start: (env: Env) => Promise<RunningService>): void {
  serve(name, start).catch((error: unknown) => {
    // The platform's errors (DATABASE_UNREACHABLE, MIGRATIONS_PENDING, …) carry actionable messages without secrets.
    process.stderr.write(`${name}: failed to start: ${error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error'}\n`);
    process.exit(1);
  });
}

async function serve(name: string, start: (env: Env) => Promise<RunningService>): Promise<void> {
  let service: RunningService;
  try {
    service = await start(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exit(EXIT_CONFIG);
    }
    throw error;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${name}: ${signal} received, shutting down\n`);
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
