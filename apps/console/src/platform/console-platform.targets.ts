/**
 * Where the console reads each app's health and metrics: their operator listeners (`/readyz`, `/metrics`), which
 * are plain HTTP on a port of their own (never the public one), named by CONSOLE_RELAY_OPERATOR_URL,
 * CONSOLE_SHIELD_OPERATOR_URL and CONSOLE_REGISTRY_OPERATOR_URL (`http://host:port`, nothing after it). Unset:
 * the app shows as not configured. The console's config composes these.
 */
import type { EnvReader } from '@trustmesh/platform-config';

export interface PlatformTargets {
  relay: string | null;
  shield: string | null;
  registry: string | null;
}

export const CONSOLE_PLATFORM_VARIABLES = {
  relay: 'CONSOLE_RELAY_OPERATOR_URL',
  shield: 'CONSOLE_SHIELD_OPERATOR_URL',
  registry: 'CONSOLE_REGISTRY_OPERATOR_URL',
} as const;

export function readConsolePlatformTargets(reader: EnvReader): PlatformTargets {
  const read = (variable: string): string | null => {
    const raw = reader.value(variable);
    if (raw === undefined) return null;
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || (url.pathname !== '/' && url.pathname !== '')) {
      reader.fail(variable, "must be the app's operator listener as http://host:port (nothing after it)");
      return null;
    }
    return url.origin;
  };
  return { relay: read(CONSOLE_PLATFORM_VARIABLES.relay), shield: read(CONSOLE_PLATFORM_VARIABLES.shield), registry: read(CONSOLE_PLATFORM_VARIABLES.registry) };
}
