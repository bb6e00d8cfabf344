/** What the benchmarks share: their settings from the environment, and how they summarise and pace a run. */
import { loadavg } from 'node:os';

/** An integer setting from `name` in the environment (unset or empty: `fallback`); throws when it is not one of at least `minimum`. */
export const setting = (name: string, fallback: number, minimum: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < minimum) throw new Error(`${name} must be an integer of at least ${minimum}`);
  return value;
};

/** The middle value (the upper one of an even count); NaN for none. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The machine's load averages over 1, 5 and 15 minutes, as printed beside each round. */
export const load = (): string => loadavg().map((value) => value.toFixed(2)).join(' ');

export const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis));
