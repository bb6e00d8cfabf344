/**
 * Waiting between tries of a failing handler, under either adapter: the delay doubles from the
 * configured base up to a cap, and the wait ends as soon as it is pointless (the subscription is
 * stopping, or the partition was taken away). A Kafka consumer also keeps heartbeating while it waits
 * (`waitAlive`: a long backoff must not look like a dead member); a local-bus member heartbeats on a
 * timer of its own and waits with `pause`.
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
    await pause(Math.min(slice, remaining), wait.signal);
    if (wait.abandoned() || wait.signal.aborted) return false;
    await wait.heartbeat();
  }
}

/** Waits `ms`; resolves true when the time ran out, false when `signal` aborted first. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (elapsed: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(elapsed);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
