/**
 * Time as the client sees it: injectable so tests drive timeouts and backoff without waiting, and so a
 * host can supply its own scheduler.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
  /**
   * Runs `callback` once the current turn of the event loop is over (the client coalesces its ACKs with it).
   * Optional: without it, a microtask is used.
   */
  defer?(callback: () => void): void;
}

/** Longest delay `setTimeout` handles (2^31 − 1 ms); longer timers are re-armed. */
const MAX_DELAY = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_DELAY)),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
  // A zero-delay timer: in a browser every WebSocket message is its own task, so a microtask would not
  // coalesce frames that arrived together; a timer runs after the messages already queued.
  defer: (callback) => void globalThis.setTimeout(callback, 0),
};
