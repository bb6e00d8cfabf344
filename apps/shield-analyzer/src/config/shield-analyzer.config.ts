/**
 * The Shield analyzer's configuration: read once at startup from the environment, validated whole, and
 * refused with one `ConfigError` naming every variable at fault (ARCHITECTURE.md, "Two ways to run"). The
 * platform part (database, bus, maintenance) comes from `loadPlatformConfig`; the model part follows
 * `libs/shield/model/README.md`; README.md beside this app lists every variable.
 *
 * Operator credentials are configured as `account:sha256hex` pairs only, so the process never holds a
 * plaintext operator credential it did not mint itself (embedded development mints one at start when none
 * is set, like the relay gateway's service credential).
 */
import {
  collectPlatformConfig,
  ConfigError,
  envReader,
  grpcClientVariables,
  variablesRead,
  type ConfigProblem,
  type Env,
  type GrpcClientTarget,
  type PlatformConfig,
} from '@trustmesh/platform-config';
import { parseOperatorCredentials, parseServiceCredentials, type OperatorCredential, type ServiceCredential } from '@trustmesh/platform-credentials';
import { readFeedSource } from '@trustmesh/platform-event-feed';
import { LOG_LEVELS, type LogLevel } from '@trustmesh/platform-logging';
import { MODEL_PROVIDER_KINDS, type ModelProviderKind } from '@trustmesh/shield-model';

export const SHIELD_ANALYZER_SERVICE_NAME = 'shield-analyzer';
export const SHIELD_ANALYZER_APP_VERSION = '0.1.0';



export interface ShieldModelConfig {
  provider: ModelProviderKind;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  providerLabel?: string;
  deadlineMs: number;
  requestTimeoutMs?: number;
  maxOutputTokens?: number;
}

export interface ShieldAnalyzerConfig {
  platform: PlatformConfig;
  embedded: boolean;
  http: { host: string; port: number };
  grpc: { host: string; port: number };
  /** GET /metrics, /healthz, /readyz on a plain listener of their own; null when SHIELD_OPERATOR_PORT=off. */
  operator: { host: string; port: number } | null;
  operatorCredentials: OperatorCredential[];
  /**
   * SHIELD_SERVICE_CREDENTIALS: `service:sha256hex` pairs of delegated service credentials (the console), each
   * acting as the operator accounts `<service>:<id>` that `trustmesh-on-behalf-of` names. Empty: none.
   */
  serviceCredentials: ServiceCredential[];
  /** `null`: no model path; every consult is analysed deterministically (SHIELD_MODEL_PROVIDER=none). */
  model: ShieldModelConfig | null;
  /** Largest JSON request body accepted, in bytes (413 beyond). */
  maxBodyBytes: number;
  replicaId: string;
  logLevel: LogLevel;
  producer: string;
  /**
   * SHIELD_REGISTRY_FEED_*: the card registry's EventFeed, when the registry runs in another process with its own
   * local bus (`npm start`): `registry.cards.v1` is copied from it into the Shield's local bus. null: not followed
   * (on Kafka, or one process, the topic is already on the Shield's bus). Local bus only.
   */
  registryFeed: GrpcClientTarget | null;
}

/** SHIELD_REGISTRY_FEED_ADDRESS, _CREDENTIAL, _CREDENTIAL_FILE, _TLS, _TLS_CA_FILE. */
export const SHIELD_REGISTRY_FEED_VARIABLES = grpcClientVariables('SHIELD_REGISTRY_FEED');


/** Reads and validates the analyzer's configuration; throws a `ConfigError` naming every bad variable. */
export function loadShieldAnalyzerConfig(env: Env): ShieldAnalyzerConfig {
  const problems: ConfigProblem[] = [];
  const platform = collectPlatformConfig(env, problems);
  const { fail, value, integer, host, oneOf, replicaId: replicaIdOf } = envReader(env, problems);
  const embedded = (platform?.database.mode ?? 'embedded') === 'embedded';
  const defaultHost = embedded ? '127.0.0.1' : '0.0.0.0';

  const http = { host: host('SHIELD_HTTP_HOST', defaultHost), port: integer('SHIELD_HTTP_PORT', 8480, 0, 65535) };
  const grpc = { host: host('SHIELD_GRPC_HOST', defaultHost), port: integer('SHIELD_GRPC_PORT', 50061, 0, 65535) };
  const operatorPortRaw = value('SHIELD_OPERATOR_PORT');
  const operator =
    operatorPortRaw?.toLowerCase() === 'off'
      ? null
      : { host: host('SHIELD_OPERATOR_HOST', '127.0.0.1'), port: integer('SHIELD_OPERATOR_PORT', embedded ? 0 : 9465, 0, 65535) };

  let operatorCredentials: OperatorCredential[] = [];
  const credentialsRaw = value('SHIELD_OPERATOR_CREDENTIALS');
  if (credentialsRaw !== undefined) {
    const parsed = parseOperatorCredentials(credentialsRaw);
    if (parsed.ok) operatorCredentials = parsed.credentials;
    else fail('SHIELD_OPERATOR_CREDENTIALS', parsed.problem);
  } else if (!embedded) {
    fail('SHIELD_OPERATOR_CREDENTIALS', 'is required in server mode (DATABASE_URL set): account:sha256hex pairs of the operator bearer credentials');
  }

  let serviceCredentials: ServiceCredential[] = [];
  const servicesRaw = value('SHIELD_SERVICE_CREDENTIALS');
  if (servicesRaw !== undefined) {
    const parsed = parseServiceCredentials(servicesRaw);
    if (parsed.ok) serviceCredentials = parsed.credentials;
    else fail('SHIELD_SERVICE_CREDENTIALS', parsed.problem);
  }

  const model = loadModelConfig(value, integer, fail);
  const registryFeed = readFeedSource(envReader(env, problems), SHIELD_REGISTRY_FEED_VARIABLES, platform?.bus.adapter ?? 'local', "the card registry's event feed");

  const replicaId = replicaIdOf('SHIELD_REPLICA_ID', `shield-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);

  const config: ShieldAnalyzerConfig = {
    platform: platform as PlatformConfig,
    embedded,
    http,
    grpc,
    operator,
    operatorCredentials,
    serviceCredentials,
    model,
    maxBodyBytes: integer('SHIELD_MAX_BODY_BYTES', 256 * 1024, 1024, 4 * 1024 * 1024),
    replicaId,
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    producer: `${SHIELD_ANALYZER_SERVICE_NAME}@${SHIELD_ANALYZER_APP_VERSION}`,
    registryFeed,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Every variable the analyzer reads from `env`, as its reader looks them up: manifests are checked against it. */
export const shieldAnalyzerVariables = (env: Env): string[] => variablesRead(loadShieldAnalyzerConfig, env);

type Reader = ReturnType<typeof envReader>;

/**
 * The model path is on by default with the Anthropic provider, as in the reference (§8.2, §10): without
 * SHIELD_MODEL_API_KEY every consult then falls back to the deterministic analyzer and records
 * `errorCode: "anthropic_api_key_missing"` and the configured model, exactly what §8.2 prescribes, so a
 * record always says why no model ran. SHIELD_MODEL_PROVIDER=none turns the model path off entirely.
 */
function loadModelConfig(value: Reader['value'], integer: Reader['integer'], fail: Reader['fail']): ShieldModelConfig | null {
  const providerRaw = (value('SHIELD_MODEL_PROVIDER') ?? 'anthropic').toLowerCase();
  if (providerRaw === 'none') return null;
  if (!(MODEL_PROVIDER_KINDS as readonly string[]).includes(providerRaw)) {
    fail('SHIELD_MODEL_PROVIDER', `must be one of ${[...MODEL_PROVIDER_KINDS, 'none'].join(', ')}`);
    return null;
  }
  const provider = providerRaw as ModelProviderKind;
  const model = value('SHIELD_MODEL');
  if (provider === 'openai' && model === undefined) fail('SHIELD_MODEL', 'is required with SHIELD_MODEL_PROVIDER=openai (the model name the endpoint serves)');
  const baseUrl = value('SHIELD_MODEL_BASE_URL');
  if (baseUrl !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(baseUrl);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) fail('SHIELD_MODEL_BASE_URL', 'must be an http:// or https:// URL');
  }
  const label = value('SHIELD_MODEL_LABEL');
  const apiKey = value('SHIELD_MODEL_API_KEY');
  const requestTimeoutRaw = value('SHIELD_MODEL_REQUEST_TIMEOUT_MS');
  const maxOutputRaw = value('SHIELD_MODEL_MAX_OUTPUT_TOKENS');
  return {
    provider,
    ...(model !== undefined ? { model } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(label !== undefined ? { providerLabel: label } : {}),
    deadlineMs: integer('SHIELD_MODEL_TIMEOUT_MS', 25_000, 1_000, 120_000),
    ...(requestTimeoutRaw !== undefined ? { requestTimeoutMs: integer('SHIELD_MODEL_REQUEST_TIMEOUT_MS', 25_000, 500, 120_000) } : {}),
    ...(maxOutputRaw !== undefined ? { maxOutputTokens: integer('SHIELD_MODEL_MAX_OUTPUT_TOKENS', 8192, 256, 64_000) } : {}),
  };
}
