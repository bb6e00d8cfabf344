/**
 * Graceful shutdown for apps: on SIGTERM (what Kubernetes sends) or SIGINT, close the bus so every
 * consumer finishes its message in hand, commits and leaves its group (its partitions move to the
 * other replicas at once instead of after a session timeout), then exit. Works for any `EventBus`.
 * A NestJS app can instead call `bus.close()` from `onApplicationShutdown` with shutdown hooks on.
 */
import type { EventBus } from './event-bus.port';
import { describeError, jsonLineBusLogger, type BusLogger } from './bus-log';

export interface GracefulShutdownOptions {
  signals?: readonly NodeJS.Signals[];
  /** Exit anyway after this long (default 25 s, inside Kubernetes' default 30 s grace period). */
  timeoutMs?: number;
  /** How to end the process (default `process.exit`); 0 after a clean close, 1 otherwise. */
  exit?: (code: number) => void;
  logger?: BusLogger;
}

/** Installs the signal handlers; returns a function that removes them. */
export function installGracefulShutdown(bus: Pick<EventBus, 'close'>, options: GracefulShutdownOptions = {}): () => void {
  const { signals = ['SIGTERM', 'SIGINT'], timeoutMs = 25_000, exit = (code: number) => process.exit(code), logger = jsonLineBusLogger('info') } = options;
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      // A second signal means "now".
      exit(1);
      return;
    }
    closing = true;
    logger.log('info', 'shutdown: closing the event bus', { signal });
    const timer = setTimeout(() => {
      logger.log('error', 'shutdown: the event bus did not close in time; exiting anyway', { timeoutMs });
      exit(1);
    }, timeoutMs);
    timer.unref();
    bus.close().then(
      () => {
        clearTimeout(timer);
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        logger.log('error', 'shutdown: closing the event bus failed', { error: describeError(error) });
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
