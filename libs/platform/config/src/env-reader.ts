/**
 * Reading variables from the environment the way every Trustmesh configuration does: blank counts as unset,
 * values are trimmed, and a bad value is recorded as a problem (naming the variable) while its fallback
 * keeps the reading going, so one `ConfigError` can name every variable at fault.
 */
import type { ConfigProblem } from './platform-config';

export type Env = Readonly<Record<string, string | undefined>>;

export interface EnvReader {
  /** Records a problem with a variable. */
  fail(variable: string, message: string): void;
  /** The trimmed value, or undefined when unset or blank. */
  value(variable: string): string | undefined;
  /** A whole number from `min` to `max`, or `fallback` when unset (or invalid, which is recorded). */
  integer(variable: string, fallback: number, min: number, max: number): number;
  /** true/1/yes/on or false/0/no/off (any case), or `fallback` when unset (or invalid, which is recorded). */
  boolean(variable: string, fallback: boolean): boolean;
}

export function envReader(env: Env, problems: ConfigProblem[]): EnvReader {
  const fail = (variable: string, message: string) => {
    problems.push({ variable, message });
  };
  const value = (variable: string): string | undefined => {
    const raw = env[variable];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
  return {
    fail,
    value,
    integer(variable, fallback, min, max) {
      const raw = value(variable);
      if (raw === undefined) return fallback;
      const parsed = Number(raw);
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
        fail(variable, `must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
        return fallback;
      }
      return parsed;
    },
    boolean(variable, fallback) {
      const raw = value(variable);
      if (raw === undefined) return fallback;
      if (['true', '1', 'yes', 'on'].includes(raw.toLowerCase())) return true;
      if (['false', '0', 'no', 'off'].includes(raw.toLowerCase())) return false;
      fail(variable, `must be true or false (got ${JSON.stringify(raw)})`);
      return fallback;
    },
  };
}
