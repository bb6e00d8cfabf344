/**
 * The undo list of a process's startup: each opened part registers how to close it, and closing runs them
 * newest first, so a part is closed before what it depends on (the publisher before the bus, everything
 * before the database), both on shutdown and when a later startup step fails.
 */
import type { Logger } from '@trustmesh/platform-logging';

export type Cleanup = () => Promise<unknown>;

export class CleanupStack {
  private readonly cleanups: Cleanup[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  push(cleanup: Cleanup): void {
    this.cleanups.push(cleanup);
  }

  /**
   * Runs every cleanup in reverse order of registration; one that fails is logged by error name only (its
   * message may carry a connection string) and the rest still run. Idempotent: later calls share the first.
   */
  close(): Promise<void> {
    return (this.closing ??= this.runAll());
  }

  private async runAll(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => this.logger.log('warn', 'shutdown step failed', { errorName: error instanceof Error ? error.name : 'unknown' }));
    }
  }
}
