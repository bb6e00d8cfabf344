/**
 * The card registry's configuration: read once at startup from the environment, validated whole, and
 * refused with one `ConfigError` naming every variable at fault (ARCHITECTURE.md, "Two ways to run"). The
 * platform part (database, bus, maintenance) comes from `loadPlatformConfig`; README.md beside this app
 * lists every variable.
 *
 * Operator credentials are configured as `account:sha256hex` pairs only, so the process never holds a
 * plaintext operator credential it did not mint itself (embedded development mints one at start when none
 * is set, like the Shield analyzer).
 */
import { collectPlatformConfig, ConfigError, envReader, variablesRead, type ConfigProblem, type Env, type PlatformConfig } from '@trustmesh/platform-config';
import { parseOperatorCredentials, parseServiceCredentials, type OperatorCredential, type ServiceCredential } from '@trustmesh/platform-credentials';
import { readFeedFollowers, type FeedFollower } from '@trustmesh/platform-event-feed';
import { LOG_LEVELS, type LogLevel } from '@trustmesh/platform-logging';

import { readFederationConfig, type FederationConfig } from '../federation/federation.config';
import { readTrustConfig, type TrustConfig } from '../trust/trust.config';
import { collectRegistryLimitsConfig, type RegistryLimitsConfig } from '../limits/registry-limits.config';
import { DEFAULT_CACHED_NAMESPACES } from '../service/namespace.repository';

export const CARD_REGISTRY_SERVICE_NAME = 'card-registry';
export const CARD_REGISTRY_APP_VERSION = '0.1.0';


export interface CardRegistryConfig {
  platform: PlatformConfig;
  embedded: boolean;
  http: { host: string; port: number };
  /** gRPC `CardRegistry` and `CardRegistryOperator` (plaintext: TLS is the deployment's proxy's, as for HTTP). */
  grpc: { host: string; port: number };
  /** Per-source, per-credential and publish limits (limits/registry-limits.config.ts). */
  limits: RegistryLimitsConfig;
  /** GET /metrics, /healthz, /readyz on a plain listener of their own; null when REGISTRY_OPERATOR_PORT=off. */
  operator: { host: string; port: number } | null;
  operatorCredentials: OperatorCredential[];
  /**
   * REGISTRY_SERVICE_CREDENTIALS: `service:sha256hex` pairs of delegated service credentials (the console), each
   * acting as the publishers `<service>-<id>` that `trustmesh-on-behalf-of` names. Empty: none.
   */
  serviceCredentials: ServiceCredential[];
  /** Largest card document accepted on publish, in bytes (413 beyond). */
  maxCardBytes: number;
  /** Largest JSON request body of the other routes, in bytes (413 beyond). */
  maxBodyBytes: number;
  /** The event store's bound on one event's data: a card's bytes travel base64 in its event. */
  maxEventDataBytes: number;
  /** Namespaces kept folded in memory (service/namespace.repository.ts), least recently used dropped first. */
  namespaceCacheEntries: number;
  /**
   * REGISTRY_PUBLIC_URL: the registry's public base URL (`https://registry.example`, no query or fragment),
   * used in the URLs served catalogs and search results point at; null: the HTTP listener's own address.
   */
  publicUrl: string | null;
  replicaId: string;
  logLevel: LogLevel;
  producer: string;
  /** Crawling other registries' sources (README.md "Federation"). */
  federation: FederationConfig;
  /** Ownership proofs, key re-checks and the test-only fetch overrides (trust/trust.config.ts). */
  trust: TrustConfig;
  /**
   * REGISTRY_FEED_CREDENTIALS: processes that may follow `registry.cards.v1` from this registry's local bus over
   * gRPC (EventFeed; `npm start` points the Shield at it), as `follower:sha256hex` pairs; null: no feed served.
   * Local bus only.
   */
  feedFollowers: FeedFollower[] | null;
}

/** Base64 grows bytes by 4/3; the rest of the event (summary, ids) stays well under this margin. */
const EVENT_MARGIN_BYTES = 256 * 1024;
/** Beyond this a card's event would pass 1 MiB, which Kafka brokers refuse by default (message.max.bytes). */
const MAX_CARD_BYTES_LIMIT = 640 * 1024;

/** An absolute http(s) URL without credentials, query or fragment, with no trailing slash; else a problem. */
function publicUrlOf(raw: string | undefined, fail: (variable: string, message: string) => void): string | null {
  if (raw === undefined) return null;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password || parsed.search || parsed.hash || raw.length > 512) {
    fail('REGISTRY_PUBLIC_URL', 'must be an absolute http(s) URL without credentials, query or fragment (at most 512 characters)');
    return null;
  }
  return parsed.href.replace(/\/+$/, '');
}

/** Reads and validates the registry's configuration; throws a `ConfigError` naming every bad variable. */
export function loadCardRegistryConfig(env: Env): CardRegistryConfig {
  const problems: ConfigProblem[] = [];
  const platform = collectPlatformConfig(env, problems);
  const { fail, value, integer, host, oneOf, replicaId: replicaIdOf } = envReader(env, problems);
  const embedded = (platform?.database.mode ?? 'embedded') === 'embedded';
  const defaultHost = embedded ? '127.0.0.1' : '0.0.0.0';

  const http = { host: host('REGISTRY_HTTP_HOST', defaultHost), port: integer('REGISTRY_HTTP_PORT', 8490, 0, 65535) };
  const grpc = { host: host('REGISTRY_GRPC_HOST', defaultHost), port: integer('REGISTRY_GRPC_PORT', 50071, 0, 65535) };
  const operatorPortRaw = value('REGISTRY_OPERATOR_PORT');
  const operator =
    operatorPortRaw?.toLowerCase() === 'off'
      ? null
      : { host: host('REGISTRY_OPERATOR_HOST', '127.0.0.1'), port: integer('REGISTRY_OPERATOR_PORT', embedded ? 0 : 9470, 0, 65535) };

  let operatorCredentials: OperatorCredential[] = [];
  const credentialsRaw = value('REGISTRY_OPERATOR_CREDENTIALS');
  if (credentialsRaw !== undefined) {
    const parsed = parseOperatorCredentials(credentialsRaw);
    if (parsed.ok) operatorCredentials = parsed.credentials;
    else fail('REGISTRY_OPERATOR_CREDENTIALS', parsed.problem);
  } else if (!embedded) {
    fail('REGISTRY_OPERATOR_CREDENTIALS', 'is required in server mode (DATABASE_URL set): account:sha256hex pairs of the operator bearer credentials');
  }

  let serviceCredentials: ServiceCredential[] = [];
  const servicesRaw = value('REGISTRY_SERVICE_CREDENTIALS');
  if (servicesRaw !== undefined) {
    const parsed = parseServiceCredentials(servicesRaw);
    if (parsed.ok) serviceCredentials = parsed.credentials;
    else fail('REGISTRY_SERVICE_CREDENTIALS', parsed.problem);
  }

  const maxCardBytes = integer('REGISTRY_MAX_CARD_BYTES', 512 * 1024, 1024, MAX_CARD_BYTES_LIMIT);
  const config: CardRegistryConfig = {
    platform: platform as PlatformConfig,
    embedded,
    http,
    grpc,
    limits: collectRegistryLimitsConfig(env, problems),
    operator,
    operatorCredentials,
    serviceCredentials,
    maxCardBytes,
    maxBodyBytes: integer('REGISTRY_MAX_BODY_BYTES', 64 * 1024, 1024, 1024 * 1024),
    maxEventDataBytes: Math.ceil((maxCardBytes * 4) / 3) + EVENT_MARGIN_BYTES,
    namespaceCacheEntries: integer('REGISTRY_NAMESPACE_CACHE_ENTRIES', DEFAULT_CACHED_NAMESPACES, 1, 1_000_000),
    publicUrl: publicUrlOf(value('REGISTRY_PUBLIC_URL'), fail),
    replicaId: replicaIdOf('REGISTRY_REPLICA_ID', `registry-${process.pid}-${Math.random().toString(36).slice(2, 8)}`),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    producer: `${CARD_REGISTRY_SERVICE_NAME}@${CARD_REGISTRY_APP_VERSION}`,
    federation: readFederationConfig(envReader(env, problems)),
    trust: readTrustConfig(envReader(env, problems)),
    feedFollowers: readFeedFollowers(envReader(env, problems), 'REGISTRY_FEED_CREDENTIALS', platform?.bus.adapter ?? 'local'),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Every variable the registry reads from `env`, as its readers look them up: manifests are checked against it. */
export const cardRegistryVariables = (env: Env): string[] => variablesRead(loadCardRegistryConfig, env);
