/**
 * Keeps a runtime busy for the load mode: one thread, one generated turn after another, with a pause
 * between the end of a turn and the start of the next (SimulatorControl's `turn_interval_ms`).
 */
import type { TimerId } from '../clock/sim-clock';
import type { SimulatedRuntime } from '../runtime/simulated-runtime';
import type { LoadTurnGenerator } from './load-turn-generator';

export interface LoadDriverOptions {
  runtime: SimulatedRuntime;
  generator: LoadTurnGenerator;
  /** Pause between turns (default 100 ms). */
  intervalMs?: number;
  /** The thread to stream in (default: a new thread titled "Load"). */
  threadId?: string;
  /** Stop after this many turns (default: until `stop`). */
  maxTurns?: number;
}

export interface LoadDriverStats {
  threadId: string;
  turnsStarted: number;
  turnsEnded: number;
  /** Turns the runtime refused to start (a person's turn was running on the thread). */
  turnsRefused: number;
  running: boolean;
}

export interface LoadDriver {
  stats(): LoadDriverStats;
  stop(): void;
}

export function startLoadDriver(options: LoadDriverOptions): LoadDriver {
  const { runtime, generator } = options;
  const intervalMs = options.intervalMs ?? 100;
  const threadId = options.threadId ?? runtime.seedThread({ title: 'Load' }).id;
  const stats: LoadDriverStats = { threadId, turnsStarted: 0, turnsEnded: 0, turnsRefused: 0, running: true };
  let timer: TimerId | undefined;

  const schedule = (ms: number) => {
    timer = runtime.clock.setTimer(ms, () => {
      timer = undefined;
      startNext();
    });
  };
  const startNext = () => {
    if (!stats.running) return;
    if (options.maxTurns !== undefined && stats.turnsStarted >= options.maxTurns) {
      stats.running = false;
      return;
    }
    try {
      runtime.startLocalTurn({
        threadId,
        input: `load turn ${stats.turnsStarted + 1}`,
        script: generator.next(),
        observer: {
          ended: () => {
            stats.turnsEnded++;
            if (stats.running) schedule(intervalMs);
          },
        },
      });
      stats.turnsStarted++;
    } catch {
      stats.turnsRefused++;
      schedule(intervalMs);
    }
  };
  schedule(0);
  return {
    stats: () => ({ ...stats }),
    stop: () => {
      stats.running = false;
      if (timer !== undefined) runtime.clock.clearTimer(timer);
      timer = undefined;
    },
  };
}
