/**
 * A clock the test moves by hand: timeouts, backoff and expiry fire only when the test advances time,
 * so nothing asserts on real durations.
 */
import type { Clock } from '../src';

interface Timer {
  at: number;
  callback: () => void;
  delay: number;
}

export class ManualClock implements Clock {
  private offset = 0;
  private readonly timers = new Map<number, Timer>();
  private ids = 0;
  /** Every delay ever scheduled, in order (backoff assertions read it). */
  readonly delays: number[] = [];

  constructor(private readonly base = Date.now()) {}

  now(): number {
    return this.base + this.offset;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    this.ids += 1;
    this.timers.set(this.ids, { at: this.now() + delayMs, callback, delay: delayMs });
    this.delays.push(delayMs);
    return this.ids;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** While true, deferred callbacks (the client's coalesced ACKs) wait for `runDeferred()`. */
  holdDeferred = false;
  private readonly deferred: Array<() => void> = [];

  defer(callback: () => void): void {
    if (this.holdDeferred) this.deferred.push(callback);
    else queueMicrotask(callback);
  }

  /** Ends "the current turn": runs the deferred callbacks held so far. */
  runDeferred(): void {
    for (const callback of this.deferred.splice(0)) callback();
  }

  /** Pending delays, for assertions such as "a reconnect of 250 ms is scheduled". */
  scheduled(): number[] {
    return [...this.timers.values()].map((timer) => timer.delay);
  }

  advance(ms: number): void {
    const target = this.now() + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, timer]) => timer.at <= target).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.offset = Math.max(this.offset, due[1].at - this.base);
      due[1].callback();
    }
    this.offset = target - this.base;
  }
}
