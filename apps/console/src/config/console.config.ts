/**
 * The console's configuration: read once at startup from the environment, validated whole, and refused with
 * one `ConfigError` naming every variable at fault (ARCHITECTURE.md, "Two ways to run"). The platform part
 * (database, bus, maintenance) comes from `collectPlatformConfig`; README.md beside this app lists every
 * variable.
 *
 * Embedded, the console keeps its own PGlite under `$TRUSTMESH_DATA_DIR/console`: PGlite is one process's
 * database, and `npm start` runs the relay and the Shield beside it on the same data directory.
 *
 * Every upstream is optional, so a console can start before the apps it fronts: RelayControl
 * (CONSOLE_RELAY_CONTROL_*), the Shield (CONSOLE_SHIELD_*) and the card registry (CONSOLE_REGISTRY_*) are each
 * read through the platform's one rule for a gRPC client (`readGrpcClientTarget`), their credentials held as
 * `SecretText`, never printed or logged; one left unset makes its routes answer 503 `*_NOT_CONFIGURED` saying
 * what to set, and one set halfway is a config error. The apps' operator listeners (CONSOLE_*_OPERATOR_URL)
 * feed the Platform page; unset, the app shows as not configured.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

import {
  collectPlatformConfig,
  ConfigError,
  envReader,
  grpcClientVariables,
  readGrpcClientTarget,
  variablesRead,
  type ConfigProblem,
  type Env,
  type GrpcClientTarget,
  type PlatformConfig,
} from '@trustmesh/platform-config';
import { LOG_LEVELS, type LogLevel } from '@trustmesh/platform-logging';
import { TrustedProxies } from '@trustmesh/platform-rate-limits';

import { readConsolePlatformTargets, type PlatformTargets } from '../platform/console-platform.targets';
import { readConsoleRegistryTarget } from '../registry/console-registry.target';
import { readConsoleShieldTarget } from '../shield/console-shield.target';

export const CONSOLE_SERVICE_NAME = 'console';
export const CONSOLE_APP_VERSION = '0.1.0';

/** CONSOLE_RELAY_CONTROL_ADDRESS, _CREDENTIAL, _CREDENTIAL_FILE, _TLS, _TLS_CA_FILE. */
export const CONSOLE_RELAY_CONTROL_VARIABLES = grpcClientVariables('CONSOLE_RELAY_CONTROL');

export interface ConsoleConfig {
  platform: PlatformConfig;
  embedded: boolean;
  http: { host: string; port: number };
  /**
   * The origin browsers load the console from (`CONSOLE_PUBLIC_ORIGIN`): state-changing requests from any
   * other `Origin` are refused, the session cookie is `Secure` when it is https, and relay session
   * descriptors are minted for it. Null until the listener is bound when the port is 0 and none is set.
   */
  publicOrigin: string | null;
  /** `wss://host[:port]` of the relay gateway, for the page's Content-Security-Policy `connect-src`. */
  relayWebSocketOrigin: string;
  /** GET /metrics, /healthz, /readyz on a plain listener of their own; null when CONSOLE_OPERATOR_PORT=off. */
  operator: { host: string; port: number } | null;
  /** RelayControl: null when not configured (workspace routes then answer 503 CONSOLE_RELAY_NOT_CONFIGURED). */
  relayControl: GrpcClientTarget | null;
  /** ShieldAnalyzer: null when not configured (Shield routes then answer 503 CONSOLE_SHIELD_NOT_CONFIGURED). */
  shield: GrpcClientTarget | null;
  /** CardRegistry: null when not configured (registry routes then answer 503 CONSOLE_REGISTRY_NOT_CONFIGURED). */
  registry: GrpcClientTarget | null;
  /** Each app's operator listener, for `/platform/health` and `/platform/metrics` (null: not configured). */
  platformTargets: PlatformTargets;
  /** Where the built page is (`npx nx build console-web`). */
  webDir: string;
  trustedProxies: TrustedProxies;
  replicaId: string;
  logLevel: LogLevel;
  producer: string;
}

export function loadConsoleConfig(env: Env): ConsoleConfig {
  const problems: ConfigProblem[] = [];
  const platformRead = collectPlatformConfig(env, problems);
  const reader = envReader(env, problems);
  const { fail, value, integer, host, oneOf, replicaId: replicaIdOf } = reader;
  const embedded = (platformRead?.database.mode ?? 'embedded') === 'embedded';
  const platform: PlatformConfig | undefined =
    platformRead && platformRead.database.mode === 'embedded'
      ? { ...platformRead, database: { mode: 'embedded', dataDir: join(platformRead.database.dataDir, 'console') } }
      : platformRead;

  const http = { host: host('CONSOLE_HTTP_HOST', '127.0.0.1'), port: integer('CONSOLE_HTTP_PORT', 8400, 0, 65535) };
  const publicOrigin = originOf(value('CONSOLE_PUBLIC_ORIGIN'), 'CONSOLE_PUBLIC_ORIGIN', ['http:', 'https:'], fail) ?? (http.port === 0 ? null : `http://localhost:${http.port}`);
  if (!embedded && publicOrigin !== null && !publicOrigin.startsWith('https:') && value('CONSOLE_PUBLIC_ORIGIN') !== undefined) {
    // A server deployment's browsers reach it over the network: the session cookie must be Secure.
    const hostname = new URL(publicOrigin).hostname;
    if (hostname !== 'localhost' && hostname !== '127.0.0.1' && hostname !== '[::1]') fail('CONSOLE_PUBLIC_ORIGIN', 'must be https:// in server mode (DATABASE_URL set) unless it is a loopback origin');
  }
  const relayPublic = originOf(value('CONSOLE_RELAY_PUBLIC_URL') ?? 'https://localhost:8443', 'CONSOLE_RELAY_PUBLIC_URL', ['https:', 'wss:'], fail) ?? 'https://localhost:8443';
  const relayWebSocketOrigin = relayPublic.replace(/^https:/, 'wss:');

  const operatorPortRaw = value('CONSOLE_OPERATOR_PORT');
  const operator =
    operatorPortRaw?.toLowerCase() === 'off' ? null : { host: host('CONSOLE_OPERATOR_HOST', '127.0.0.1'), port: integer('CONSOLE_OPERATOR_PORT', embedded ? 0 : 9468, 0, 65535) };

  const relayControl = readGrpcClientTarget(reader, CONSOLE_RELAY_CONTROL_VARIABLES, { peer: "the relay gateway's RelayControl", required: false });

  const shield = readConsoleShieldTarget(reader);
  const registry = readConsoleRegistryTarget(reader);
  const platformTargets = readConsolePlatformTargets(reader);

  const webDirRaw = value('CONSOLE_WEB_DIR');
  const webDir = webDirRaw === undefined ? defaultConsoleWebDir() : isAbsolute(webDirRaw) ? webDirRaw : resolve(webDirRaw);

  let trustedProxies = TrustedProxies.none;
  const proxiesRaw = value('CONSOLE_TRUSTED_PROXIES');
  if (proxiesRaw !== undefined) {
    const parsed = TrustedProxies.parse(proxiesRaw);
    if (parsed.invalid.length > 0) fail('CONSOLE_TRUSTED_PROXIES', 'must be a comma-separated list of IP addresses or CIDR blocks');
    trustedProxies = parsed.proxies;
  }

  const config: ConsoleConfig = {
    platform: platform as PlatformConfig,
    embedded,
    http,
    publicOrigin,
    relayWebSocketOrigin,
    operator,
    relayControl,
    shield,
    registry,
    platformTargets,
    webDir,
    trustedProxies,
    replicaId: replicaIdOf('CONSOLE_REPLICA_ID', `console-${process.pid}-${Math.random().toString(36).slice(2, 8)}`),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    producer: `${CONSOLE_SERVICE_NAME}@${CONSOLE_APP_VERSION}`,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Every variable the console reads from `env`, as its reader looks them up. */
export const consoleVariables = (env: Env): string[] => variablesRead(loadConsoleConfig, env);

/**
 * The built page when CONSOLE_WEB_DIR is unset: `web/` beside the running bundle's main.js, where
 * `nx build console` puts `console-web`'s build (the image and `node main.js` anywhere then serve it with
 * nothing set), else `dist/apps/console/web` from the working directory, where `nx build console-web` writes
 * it for `nx serve console` at the repository root. In the bundle `__dirname` is the bundle's folder; from
 * the sources it is this file's, which holds no page.
 */
export function defaultConsoleWebDir(): string {
  const bundled = join(__dirname, 'web');
  return existsSync(join(bundled, 'index.html')) ? bundled : resolve('dist', 'apps', 'console', 'web');
}

/** `scheme://host[:port]` of a URL with nothing after its origin, or undefined (and a problem) when it is not one. */
function originOf(raw: string | undefined, variable: string, schemes: readonly string[], fail: (variable: string, message: string) => void): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !schemes.includes(parsed.protocol) || parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '' || (parsed.pathname !== '/' && parsed.pathname !== '')) {
    fail(variable, `must be an origin (${schemes.map((scheme) => `${scheme}//`).join(' or ')}host[:port], nothing after it)`);
    return undefined;
  }
  return parsed.origin;
}
