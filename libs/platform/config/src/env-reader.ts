/**
 * Reading variables from the environment the way every Trustmesh configuration does: blank counts as unset,
 * values are trimmed, and a bad value is recorded as a problem (naming the variable) while its fallback
 * keeps the reading going, so one `ConfigError` can name every variable at fault.
 */
import type { ConfigProblem } from './platform-config';

export type Env = Readonly<Record<string, string | undefined>>;

export interface EnvReader {
  /** Records a problem with a variable (with a stable code when the rule has one). */
  fail(variable: string, message: string, code?: string): void;
  /** The trimmed value, or undefined when unset or blank. */
  value(variable: string): string | undefined;
  /** A whole number from `min` to `max`, or `fallback` when unset (or invalid, which is recorded). */
  integer(variable: string, fallback: number, min: number, max: number): number;
  /** true/1/yes/on or false/0/no/off (any case), or `fallback` when unset (or invalid, which is recorded). */
  boolean(variable: string, fallback: boolean): boolean;
  /** One of `choices` (any case, answered in the choice's spelling), or `fallback` when unset (or invalid, which is recorded). */
  oneOf<T extends string>(variable: string, choices: readonly T[], fallback: T): T;
  /** A host name or IP address to listen on or reach (`fallback` when unset; an invalid one is recorded). */
  host(variable: string, fallback: string): string;
  /**
   * The name this process gives itself in logs and leases: the variable, or `generated` when unset (an app
   * passes something unique per process, so replicas started without one still tell apart). 1-64 letters,
   * digits, dots, dashes or underscores.
   */
  replicaId(variable: string, generated: string): string;
}

const HOST = /^[A-Za-z0-9.-]{1,253}$|^\[?[0-9A-Fa-f:.]{2,45}\]?$/;
/** Whether `value` has the shape of a host name or IP address (IPv6 with or without brackets). */
export const isHost = (value: string): boolean => HOST.test(value);
const REPLICA_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function envReader(env: Env, problems: ConfigProblem[]): EnvReader {
  const fail = (variable: string, message: string, code?: string) => {
    problems.push(code === undefined ? { variable, message } : { variable, message, code });
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
    oneOf(variable, choices, fallback) {
      const raw = value(variable);
      if (raw === undefined) return fallback;
      const chosen = choices.find((choice) => choice.toLowerCase() === raw.toLowerCase());
      if (chosen === undefined) fail(variable, `must be one of ${choices.join(', ')}`);
      return chosen ?? fallback;
    },
    host(variable, fallback) {
      const raw = value(variable) ?? fallback;
      if (!isHost(raw)) fail(variable, `must be a host name or IP address (got ${JSON.stringify(raw)})`);
      return raw;
    },
    replicaId(variable, generated) {
      const raw = value(variable) ?? generated;
      if (!REPLICA_ID.test(raw)) fail(variable, 'must be 1–64 letters, digits, dots, dashes or underscores');
      return raw;
    },
  };
}
