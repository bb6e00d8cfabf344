/**
 * Time as the client sees it: injectable so tests drive timeouts and backoff without waiting, and so a
 * host can supply its own scheduler.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Longest delay `setTimeout` handles (2^31 − 1 ms); longer timers are re-armed. */
const MAX_DELAY = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_DELAY)),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};
