/**
 * How many messages a subscription has in hand at once, across its partitions (like kafkajs'
 * `partitionsConsumedConcurrently`; one by default, so a handler need not be re-entrant). Partitions wait
 * for a slot in arrival order; a partition that is stopped or revoked while waiting gives up its turn.
 */
export class HandlerSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(slots: number) {
    this.free = slots;
  }

  /** Resolves true with a slot, or false if `signal` aborted first (no slot taken). */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const granted = () => {
        signal.removeEventListener('abort', aborted);
        resolve(true);
      };
      const aborted = () => {
        const index = this.waiting.indexOf(granted);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(false);
      };
      this.waiting.push(granted);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}
