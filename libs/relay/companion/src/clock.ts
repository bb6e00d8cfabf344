/**
 * Time for the Companion core: the interaction broker's expiry timers and deadlines. Injected so tests
 * (and scripted simulations) run deterministically with a `ManualClock`.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `callback` once after `delayMs`; the returned function cancels it. */
  setTimer(delayMs: number, callback: () => void): () => void;
}

/** Longest delay a host timer takes; longer ones overflow and would fire at once. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** The host's wall clock and timers (deadlines beyond ~24.8 days are reached in several hops). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(delayMs, callback) {
    const due = Date.now() + Math.max(0, delayMs);
    let handle: ReturnType<typeof globalThis.setTimeout>;
    const arm = () => {
      const remaining = due - Date.now();
      if (remaining > MAX_TIMER_DELAY_MS) handle = globalThis.setTimeout(arm, MAX_TIMER_DELAY_MS);
      else handle = globalThis.setTimeout(callback, Math.max(0, remaining));
    };
    arm();
    return () => globalThis.clearTimeout(handle);
  },
};

/** A clock that moves only when told to: timers fire, in deadline order, inside `advance`. */
export class ManualClock implements Clock {
  private current: number;
  private timers: Array<{ at: number; order: number; callback: () => void }> = [];
  private created = 0;

  constructor(start: number | string = '2026-11-30T12:00:00.000Z') {
    this.current = typeof start === 'number' ? start : Date.parse(start);
  }

  now(): number {
    return this.current;
  }

  setTimer(delayMs: number, callback: () => void): () => void {
    const timer = { at: this.current + Math.max(0, delayMs), order: this.created++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((other) => other !== timer);
    };
  }

  /** Moves time forward by `ms`, firing every timer that falls due. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = Math.max(this.current, due.at);
      due.callback();
    }
    this.current = target;
  }

  /** Timers still waiting. */
  get pendingTimers(): number {
    return this.timers.length;
  }
}
