/**
 * Crawls due federation sources on every replica, every REGISTRY_FEDERATION_TICK_MS (README.md "Federation"). Replicas
 * need no coordination beyond the event store: each tick tries to claim each due source at its stream's expected
 * version (federation.service.ts), so a source is crawled by one replica at a time. One tick runs at a time here; a
 * failing tick (database unreachable) is logged and the next one tries again.
 */
import type { Logger } from '@trustmesh/platform-logging';

import type { FederationService } from './federation.service';

export class FederationScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly federation: FederationService,
    private readonly tickMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops ticking and aborts the crawl in flight; resolves when the current tick has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.federation.close();
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.tickMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      const crawled = await this.federation.crawlDue();
      if (crawled > 0) this.logger.log('debug', 'federation tick', { crawled });
    } catch (error) {
      this.logger.log('warn', 'federation tick failed', { errorName: error instanceof Error ? error.name : 'unknown' });
    }
  }
}
