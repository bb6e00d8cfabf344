/**
 * The platform's periodic maintenance: runs a process's retention tasks (the outbox purge, the projections'
 * history purge, the local bus's log retention; `platform-maintenance.tasks.ts`) every interval, so that
 * nothing the platform writes grows without end. Every app runs one, started with its platform parts.
 *
 * - When: the first run at a random point of the first interval, then every interval ± `jitter` (10 %),
 *   so replicas started together do not purge together, and a process restarted more often than the
 *   interval still runs, on average, once per interval.
 * - One run at a time: the next run is scheduled only once the current one finished; `runNow` joins a run
 *   in progress instead of starting a second one.
 * - Never fatal: a task that fails is logged with its stable code and its error's class name (never its
 *   message, which may quote data) and the run goes on with the next task; the next run tries again.
 * - Several replicas on one database: each runs its own scheduler. The tasks' deletes are idempotent (a
 *   row deleted by one replica is simply not found by the other) and bounded, so no cross-replica lock is
 *   needed; the jitter keeps them apart most of the time.
 * - `stop` cancels the timer, aborts the run in progress between its statements, and resolves once it
 *   ended, so a shutdown closes the database after the last purge statement, never under it.
 */
import type { Logger, LogFields } from '@trustmesh/platform-logging';

export interface MaintenanceTaskContext {
  /** Aborted when the scheduler stops: a long task stops between statements. */
  signal: AbortSignal;
  logger: Logger;
}

export interface MaintenanceTask {
  /** Stable name in the logs, e.g. `bus-log-retention`. */
  name: string;
  /** Stable code logged when the task fails, e.g. `BUS_RETENTION_FAILED`. */
  failureCode: string;
  /** One pass; returns what it did as counts (rows deleted), which the scheduler logs. */
  run(context: MaintenanceTaskContext): Promise<Readonly<Record<string, number>>>;
}

export interface MaintenanceSchedulerOptions {
  tasks: readonly MaintenanceTask[];
  /** Time between runs (`TRUSTMESH_MAINTENANCE_INTERVAL_MS`). */
  intervalMs: number;
  /** Each wait varies by up to this fraction of the interval either way (default 0.1). */
  jitter?: number;
  logger: Logger;
}

/** What one run did, per task: its counts, or the code it failed with. */
export type MaintenanceReport = Record<string, { counts: Readonly<Record<string, number>> } | { failed: string }>;

export class MaintenanceScheduler {
  private readonly jitter: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<MaintenanceReport> | undefined;
  private readonly stopping = new AbortController();
  private started = false;
  private runs = 0;

  constructor(private readonly options: MaintenanceSchedulerOptions) {
    this.jitter = options.jitter ?? 0.1;
    if (!Number.isSafeInteger(options.intervalMs) || options.intervalMs < 1) throw new RangeError('maintenance: intervalMs must be a whole number ≥ 1');
    if (!(this.jitter >= 0 && this.jitter < 1)) throw new RangeError('maintenance: jitter must be from 0 to below 1');
  }

  /** Runs completed since start (for health reporting and tests). */
  get completedRuns(): number {
    return this.runs;
  }

  start(): void {
    if (this.started || this.stopping.signal.aborted) return;
    this.started = true;
    this.schedule(Math.random() * this.options.intervalMs);
  }

  /** Runs every task once now, or joins the run in progress. */
  runNow(): Promise<MaintenanceReport> {
    this.running ??= this.runTasks().finally(() => {
      this.running = undefined;
      this.runs += 1;
    });
    return this.running;
  }

  /** Stops scheduling, aborts the run in progress between statements, and waits for it to end. */
  async stop(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.stopping.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runNow()
        .catch(() => undefined)
        .then(() => this.schedule(this.nextDelayMs()));
    }, delayMs);
    // Maintenance never keeps a process alive on its own.
    this.timer.unref();
  }

  private nextDelayMs(): number {
    return this.options.intervalMs * (1 - this.jitter + 2 * this.jitter * Math.random());
  }

  private async runTasks(): Promise<MaintenanceReport> {
    const { logger } = this.options;
    const report: MaintenanceReport = {};
    for (const task of this.options.tasks) {
      if (this.stopping.signal.aborted) break;
      const started = Date.now();
      try {
        const counts = await task.run({ signal: this.stopping.signal, logger });
        report[task.name] = { counts };
        const fields: LogFields = { task: task.name, durationMs: Date.now() - started, ...counts };
        logger.log(Object.values(counts).some((count) => count > 0) ? 'info' : 'debug', 'maintenance: task done', fields);
      } catch (error) {
        report[task.name] = { failed: task.failureCode };
        logger.log('warn', 'maintenance: task failed; it runs again next time', {
          task: task.name,
          code: task.failureCode,
          errorName: error instanceof Error ? error.name : 'unknown',
        });
      }
    }
    return report;
  }
}
