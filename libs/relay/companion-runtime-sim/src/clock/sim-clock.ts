/**
 * Time for the simulated runtime. Every delay the runtime waits goes through a `SimClock`, so a test
 * drives a turn by advancing a manual clock instead of sleeping, and an app uses the system clock.
 */
export type TimerId = number;

export interface SimClock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `callback` once, `delayMs` from now. */
  setTimer(delayMs: number, callback: () => void): TimerId;
  clearTimer(id: TimerId): void;
}

/** The wall clock, through the timers every JavaScript host has (no Node built-ins). */
export function systemClock(): SimClock {
  const handles = new Map<TimerId, ReturnType<typeof globalThis.setTimeout>>();
  let nextId = 1;
  return {
    now: () => Date.now(),
    setTimer(delayMs, callback) {
      const id = nextId++;
      handles.set(
        id,
        globalThis.setTimeout(() => {
          handles.delete(id);
          callback();
        }, Math.max(0, delayMs)),
      );
      return id;
    },
    clearTimer(id) {
      const handle = handles.get(id);
      if (handle !== undefined) globalThis.clearTimeout(handle);
      handles.delete(id);
    },
  };
}

export interface ManualClock extends SimClock {
  /** Moves time forward by `ms`, firing every timer that falls due, in due order. Returns how many fired. */
  advance(ms: number): number;
  /** Fires timers (moving time to each) until none is left; stops after `maxTimers` as a runaway guard. */
  runUntilIdle(maxTimers?: number): number;
  /** Due time of the next timer, or null when none is scheduled. */
  nextDueAt(): number | null;
  pendingTimers(): number;
}

interface ScheduledTimer {
  id: TimerId;
  dueAt: number;
  callback: () => void;
}

/**
 * A clock that moves only when told to. Timers due at the same instant fire in the order they were
 * scheduled, and a timer scheduled while firing runs in the same `advance` when it falls due.
 */
export function createManualClock(startMs = Date.parse('2026-01-01T00:00:00.000Z')): ManualClock {
  let now = startMs;
  let nextId = 1;
  const timers: ScheduledTimer[] = [];

  const takeNextDue = (limit: number): ScheduledTimer | undefined => {
    let best = -1;
    for (let index = 0; index < timers.length; index++) {
      const timer = timers[index];
      if (!timer || timer.dueAt > limit) continue;
      const current = best >= 0 ? timers[best] : undefined;
      if (!current || timer.dueAt < current.dueAt || (timer.dueAt === current.dueAt && timer.id < current.id)) best = index;
    }
    return best >= 0 ? timers.splice(best, 1)[0] : undefined;
  };

  const clock: ManualClock = {
    now: () => now,
    setTimer(delayMs, callback) {
      const id = nextId++;
      timers.push({ id, dueAt: now + Math.max(0, delayMs), callback });
      return id;
    },
    clearTimer(id) {
      const index = timers.findIndex((timer) => timer.id === id);
      if (index >= 0) timers.splice(index, 1);
    },
    advance(ms) {
      const target = now + Math.max(0, ms);
      let fired = 0;
      for (let timer = takeNextDue(target); timer; timer = takeNextDue(target)) {
        now = Math.max(now, timer.dueAt);
        fired++;
        timer.callback();
      }
      now = target;
      return fired;
    },
    runUntilIdle(maxTimers = 1_000_000) {
      let fired = 0;
      while (timers.length > 0) {
        if (fired >= maxTimers) throw new Error(`The manual clock fired ${maxTimers} timers and is still not idle.`);
        const timer = takeNextDue(Number.POSITIVE_INFINITY);
        if (!timer) break;
        now = Math.max(now, timer.dueAt);
        fired++;
        timer.callback();
      }
      return fired;
    },
    nextDueAt() {
      return timers.reduce<number | null>((min, timer) => (min === null || timer.dueAt < min ? timer.dueAt : min), null);
    },
    pendingTimers: () => timers.length,
  };
  return clock;
}

/**
 * The same clock in the shape the Companion core takes (`Clock` of `@trustmesh/relay-companion`: a timer
 * returns its cancel function), so a host or a test runs the runtime and the core on one clock.
 */
export function companionClockOf(clock: SimClock): { now(): number; setTimer(delayMs: number, callback: () => void): () => void } {
  return {
    now: () => clock.now(),
    setTimer(delayMs, callback) {
      const id = clock.setTimer(delayMs, callback);
      return () => clock.clearTimer(id);
    },
  };
}
