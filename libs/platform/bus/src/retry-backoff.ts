/**
 * Waiting between tries of a failing handler, under either adapter: the delay doubles from the
 * configured base up to a cap, and the wait ends as soon as it is pointless (the subscription is
 * stopping). A Kafka member does not wait inside its batch at all: it parks the partition and resumes
 * it by timer after the delay (`kafka/kafka-subscription.ts`); a local-bus member heartbeats on a timer
 * of its own and waits with `pause`.
 */

/** Delay after failed try `attempt` (1-based): base, 2·base, 4·base, …, never above `capMs`. */
export function retryDelayMs(attempt: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
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
