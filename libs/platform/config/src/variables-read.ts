/**
 * Which variables a configuration reader looks at, found by running the reader itself over an environment
 * that records every lookup: the list can never drift from the reader, as a hand-kept copy would.
 * Deployment manifests are checked against it (every variable they set must be one the app reads).
 */
import type { Env } from './env-reader';
import { ConfigError } from './platform-config';

/**
 * The names `read` looks up when given `env`, sorted. Branches the values in `env` leave untaken are not
 * visited, so pass the environment you mean to deploy. A `ConfigError` is not a failure here: the
 * variables were read before the reader refused them.
 */
export function variablesRead(read: (env: Env) => unknown, env: Env = {}): string[] {
  const names = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name, receiver) {
      if (typeof name === 'string') names.add(name);
      return Reflect.get(target, name, receiver);
    },
  });
  try {
    read(recording);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  return [...names].sort();
}
