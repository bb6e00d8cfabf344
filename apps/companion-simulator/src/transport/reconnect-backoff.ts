/**
 * The Companion's reconnect schedule (§11): 500 ms, doubling per failed attempt, capped at 30 s, and back to
 * 500 ms once a transport opens. No jitter: the spec gives exact delays, and one Companion per workspace
 * never stampedes a relay the way many browsers could.
 */
export const COMPANION_RECONNECT_INITIAL_MS = 500;
export const COMPANION_RECONNECT_MAX_MS = 30_000;

/** Delay before reconnect attempt `attempt` (1 = the first attempt after a loss). */
export function companionReconnectDelay(attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt must be a whole number from 1');
  // 500·2^6 = 32 000 already exceeds the cap, so larger exponents need not be computed.
  return Math.min(COMPANION_RECONNECT_MAX_MS, COMPANION_RECONNECT_INITIAL_MS * 2 ** Math.min(attempt - 1, 6));
}

/** Attempt counter over `companionReconnectDelay`. */
export class ReconnectBackoff {
  private attempt = 0;

  /** The delay before the next attempt; each call counts one more failed attempt. */
  nextDelay(): number {
    this.attempt += 1;
    return companionReconnectDelay(this.attempt);
  }

  /** A transport opened: the next loss starts again at 500 ms. */
  reset(): void {
    this.attempt = 0;
  }

  /** Continues the schedule from `attempts` failed attempts (see the transport's credential refusal). */
  restore(attempts: number): void {
    this.attempt = Math.max(0, Math.floor(attempts));
  }

  get attempts(): number {
    return this.attempt;
  }
}
