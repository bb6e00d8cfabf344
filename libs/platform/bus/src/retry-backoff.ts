/**
 * Waiting between tries of a failing handler without losing the partition: the delay doubles from
 * the configured base up to a cap, and while it runs the consumer keeps heartbeating (a long backoff
 * must not look like a dead member) and gives up as soon as waiting is pointless: the subscription is
 * stopping, or a rebalance took the partition away.
 */

/** Delay after failed try `attempt` (1-based): base, 2·base, 4·base, …, never above `capMs`. */
export function retryDelayMs(attempt: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

export interface AliveWait {
  /** Tells the group coordinator the member is alive (kafkajs throttles it to the heartbeat interval). */
  heartbeat: () => Promise<void>;
  heartbeatEveryMs: number;
  /** True when the wait should end early and the message be left for redelivery. */
  abandoned: () => boolean;
  /** Aborted when the subscription stops, to end the wait at once. */
  signal: AbortSignal;
}

/** Waits `ms`; resolves true when the time ran out, false when the wait was abandoned. */
export async function waitAlive(ms: number, wait: AliveWait): Promise<boolean> {
  const slice = Math.max(10, Math.min(wait.heartbeatEveryMs, 250));
  const deadline = Date.now() + ms;
  for (;;) {
    if (wait.abandoned() || wait.signal.aborted) return false;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return true;
    await sleep(Math.min(slice, remaining), wait.signal);
    if (wait.abandoned() || wait.signal.aborted) return false;
    await wait.heartbeat();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
