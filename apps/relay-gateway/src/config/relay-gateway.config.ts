/**
 * The relay gateway's configuration: read once at startup from the environment, validated whole, and
 * refused with one message naming every variable at fault (ARCHITECTURE.md, "Two ways to run"). The
 * platform part (bus, database) comes from `loadPlatformConfig`; this file adds the gateway's own
 * variables. The table in ../../README.md lists them all.
 *
 * Service credentials are configured as SHA-256 hashes only, so the process never holds a plaintext
 * credential it did not mint itself (embedded development mode mints one at start when none is set).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

import { collectPlatformConfig, ConfigError, envReader, isHost, variablesRead, type ConfigProblem, type Env, type PlatformConfig } from '@trustmesh/platform-config';
import { LOG_LEVELS, type LogLevel } from '@trustmesh/platform-logging';
import { TrustedProxies } from '@trustmesh/platform-rate-limits';

import { loadDataPlaneConfig } from '../data-plane/data-plane.config';
import { readWorkspaceCardConfig, type WorkspaceCardConfig } from '../workspace-card/workspace-card.config';

export type TlsMode = 'files' | 'self-signed' | 'terminated-by-proxy' | 'off';

export interface RelayGatewayConfig {
  platform: PlatformConfig;
  /** Whether the database is embedded PGlite (single machine, development defaults apply). */
  embedded: boolean;
  /** Where embedded mode keeps its files (database, development certificate). */
  dataDir: string;
  http: { host: string; port: number };
  grpc: { host: string; port: number; tls: boolean };
  /**
   * The operator listener (plain HTTP): GET /metrics, /healthz, /readyz. Loopback by default; null when
   * RELAY_OPERATOR_PORT is `off`.
   */
  operator: { host: string; port: number } | null;
  /**
   * The public base URL browsers and Companions reach this gateway at (https://host[:port][/prefix]);
   * browser session descriptors are `wss://<same host and prefix>/v1/browser?ticket=…`.
   * `null` means: derived from the bound HTTP address once listening (embedded development).
   */
  publicBaseUrl: string | null;
  tls:
    | { mode: 'files'; certFile: string; keyFile: string }
    | { mode: 'self-signed'; dir: string; hostnames: string[] }
    | { mode: 'terminated-by-proxy' }
    | { mode: 'off' };
  /** SHA-256 digests (32 bytes each) of the accepted service credentials; empty = mint a development one. */
  serviceCredentialDigests: Buffer[];
  pairingCode: { defaultTtlSeconds: number; maxTtlSeconds: number };
  browserTicket: { ttlSeconds: number };
  enrollment: {
    /** Redeem attempts allowed per source address per window. */
    rateLimitPerWindow: number;
    rateLimitWindowSeconds: number;
  };
  /** Proxies whose X-Forwarded-For hops are believed (RELAY_TRUSTED_PROXIES); none by default. */
  trustedProxies: TrustedProxies;
  /** Identifies this process among replicas (logs, presence rows, bus consumer groups). */
  replicaId: string;
  /** How often this replica renews its liveness row, and after how long without renewal others presume it dead. */
  replicaLiveness: { heartbeatSeconds: number; timeoutSeconds: number };
  /** Publishing workspaces' agents as AI Cards in the card registry (RELAY_REGISTRY_*); null when not configured. */
  workspaceCards: WorkspaceCardConfig | null;
  logLevel: LogLevel;
  /** `<service>@<version>`, the producer of this process's events. */
  producer: string;
}

export const RELAY_GATEWAY_VERSION = '0.1.0';
export const RELAY_GATEWAY_SERVICE_NAME = 'relay-gateway';

/** DI token of the validated `RelayGatewayConfig`. */
export const RELAY_CONFIG = Symbol.for('trustmesh.relay-gateway.Config');

const SHA256_HEX = /^[0-9a-f]{64}$/i;
/** RELAY_TLS value for a gateway whose clients reach it through a TLS-terminating proxy. */
export const TERMINATED_BY_PROXY = 'terminated-by-proxy';

/** Reads and validates the gateway's configuration; throws a `ConfigError` naming every bad variable. */
export function loadRelayGatewayConfig(env: Env, options: { cwd?: string; readFile?: (path: string) => string } = {}): RelayGatewayConfig {
  const cwd = options.cwd ?? process.cwd();
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
  const problems: ConfigProblem[] = [];
  const platform = collectPlatformConfig(env, problems);
  const reader = envReader(env, problems);
  const { fail, value, integer, boolean, host, oneOf, replicaId: replicaIdOf } = reader;
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));

  const embedded = (platform?.database.mode ?? 'embedded') === 'embedded';
  const dataDir = absolute(value('TRUSTMESH_DATA_DIR') ?? '.data');

  let publicBaseUrl: string | null = null;
  const baseRaw = value('RELAY_PUBLIC_BASE_URL');
  if (baseRaw !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(baseRaw);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.protocol !== 'https:' || parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
      fail('RELAY_PUBLIC_BASE_URL', 'must be an https:// URL with no query, fragment or credentials (e.g. https://relay.example.com)');
    } else {
      publicBaseUrl = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
    }
  } else if (!embedded) {
    fail('RELAY_PUBLIC_BASE_URL', 'is required with DATABASE_URL (server mode): the https:// URL browsers and Companions reach this gateway at');
  }

  // Server mode is never development: the service credential and device credentials must not cross the
  // network in the clear, so both listeners need TLS unless the operator names a proxy that terminates it.
  const certFile = value('RELAY_TLS_CERT_FILE');
  const keyFile = value('RELAY_TLS_KEY_FILE');
  const tlsRaw = value('RELAY_TLS') ?? (certFile || keyFile ? 'files' : embedded ? 'self-signed' : undefined);
  let tls: RelayGatewayConfig['tls'] = { mode: 'off' };
  if (tlsRaw === undefined) {
    fail('RELAY_TLS', `is required in server mode: "files" (with RELAY_TLS_CERT_FILE and RELAY_TLS_KEY_FILE), or "${TERMINATED_BY_PROXY}" when a proxy in front of the gateway terminates TLS`);
  } else if (tlsRaw === 'files') {
    if (!certFile) fail('RELAY_TLS_CERT_FILE', 'is required with RELAY_TLS=files (a PEM certificate chain file)');
    if (!keyFile) fail('RELAY_TLS_KEY_FILE', 'is required with RELAY_TLS=files (a PEM private key file)');
    if (certFile && keyFile) tls = { mode: 'files', certFile: absolute(certFile), keyFile: absolute(keyFile) };
  } else if (tlsRaw === 'self-signed') {
    const hostnames = (value('RELAY_TLS_SELF_SIGNED_HOSTS') ?? 'localhost,127.0.0.1,::1').split(',').map((entry) => entry.trim()).filter(Boolean);
    if (hostnames.some((name) => !isHost(name))) fail('RELAY_TLS_SELF_SIGNED_HOSTS', 'must be a comma-separated list of host names or IP addresses');
    tls = { mode: 'self-signed', dir: absolute(value('RELAY_TLS_SELF_SIGNED_DIR') ?? `${dataDir}/relay-gateway/tls`), hostnames };
  } else if (tlsRaw === TERMINATED_BY_PROXY) {
    tls = { mode: 'terminated-by-proxy' };
  } else if (tlsRaw === 'off') {
    if (!embedded) fail('RELAY_TLS', `"off" is for embedded development only; in server mode use "files", or "${TERMINATED_BY_PROXY}" behind a TLS-terminating proxy`);
  } else {
    fail('RELAY_TLS', `must be "files", "self-signed", "${TERMINATED_BY_PROXY}" or "off" (got ${JSON.stringify(tlsRaw)})`);
  }
  const certificate = tls.mode === 'files' || tls.mode === 'self-signed';
  // Behind a terminating proxy the plain listeners default to loopback (a sidecar or a proxy on the same
  // host); anything else must be named, and is then the operator's statement that only the proxy reaches it.
  const defaultHost = embedded || tls.mode === 'terminated-by-proxy' ? '127.0.0.1' : '0.0.0.0';
  const http = { host: host('RELAY_HTTP_HOST', defaultHost), port: integer('RELAY_HTTP_PORT', 8443, 0, 65535) };
  const grpcTls = boolean('RELAY_GRPC_TLS', !embedded && certificate);
  if (grpcTls && !certificate) fail('RELAY_GRPC_TLS', 'needs a certificate: set RELAY_TLS=files or self-signed');
  if (!grpcTls && !embedded && certificate) {
    fail('RELAY_GRPC_TLS', `must not be false in server mode: the service credential would cross the network in the clear (use RELAY_TLS=${TERMINATED_BY_PROXY} if a proxy terminates TLS for gRPC too)`);
  }
  const grpc = { host: host('RELAY_GRPC_HOST', defaultHost), port: integer('RELAY_GRPC_PORT', 50051, 0, 65535), tls: grpcTls };

  // The operator port: metrics (and probe copies) off the public data port. Embedded mode takes any free
  // port by default, so several development gateways (and test suites) never collide on it.
  const operatorPortRaw = value('RELAY_OPERATOR_PORT');
  const operator =
    operatorPortRaw?.toLowerCase() === 'off'
      ? null
      : { host: host('RELAY_OPERATOR_HOST', '127.0.0.1'), port: integer('RELAY_OPERATOR_PORT', embedded ? 0 : 9464, 0, 65535) };

  const serviceCredentialDigests: Buffer[] = [];
  const addDigests = (variable: string, text: string) => {
    const entries = text.split(/[\s,]+/).filter(Boolean);
    const bad = entries.filter((entry) => !SHA256_HEX.test(entry));
    // Never echo the entries: a misplaced plaintext credential must not reach the logs.
    if (bad.length > 0) fail(variable, `must hold SHA-256 digests as 64 hex characters, separated by commas or new lines (${bad.length} entr${bad.length === 1 ? 'y is' : 'ies are'} not)`);
    else serviceCredentialDigests.push(...entries.map((entry) => Buffer.from(entry, 'hex')));
  };
  const digestsRaw = value('RELAY_SERVICE_CREDENTIAL_SHA256');
  if (digestsRaw !== undefined) addDigests('RELAY_SERVICE_CREDENTIAL_SHA256', digestsRaw);
  const digestsFile = value('RELAY_SERVICE_CREDENTIAL_SHA256_FILE');
  if (digestsFile !== undefined) {
    let text: string | undefined;
    try {
      text = readFile(absolute(digestsFile));
    } catch {
      fail('RELAY_SERVICE_CREDENTIAL_SHA256_FILE', `cannot be read (${absolute(digestsFile)})`);
    }
    if (text !== undefined) addDigests('RELAY_SERVICE_CREDENTIAL_SHA256_FILE', text.replace(/#.*$/gm, ''));
  }
  if (serviceCredentialDigests.length === 0 && !embedded && digestsRaw === undefined && digestsFile === undefined) {
    fail('RELAY_SERVICE_CREDENTIAL_SHA256', 'is required in server mode (or RELAY_SERVICE_CREDENTIAL_SHA256_FILE): SHA-256 hex digests of the service credentials callers present');
  } else if (serviceCredentialDigests.length === 0 && (digestsRaw !== undefined || digestsFile !== undefined) && problems.every((problem) => !problem.variable.startsWith('RELAY_SERVICE_CREDENTIAL_SHA256'))) {
    // Set but empty (",", a blank or comment-only file) is a mistake, never a request for a minted
    // credential: refuse it in every mode, naming what was set.
    fail(
      digestsFile !== undefined && digestsRaw === undefined ? 'RELAY_SERVICE_CREDENTIAL_SHA256_FILE' : 'RELAY_SERVICE_CREDENTIAL_SHA256',
      'is set but holds no SHA-256 digest: list the digests of the service credentials callers present (leave it unset only in embedded development, where a credential is minted for the run)',
    );
  }

  const maxTtlSeconds = integer('RELAY_PAIRING_CODE_MAX_TTL_SECONDS', 3600, 60, 7 * 24 * 3600);
  const defaultTtlSeconds = integer('RELAY_PAIRING_CODE_TTL_SECONDS', 600, 30, 7 * 24 * 3600);
  if (defaultTtlSeconds > maxTtlSeconds) fail('RELAY_PAIRING_CODE_TTL_SECONDS', `must not exceed RELAY_PAIRING_CODE_MAX_TTL_SECONDS (${maxTtlSeconds})`);

  const replicaId = replicaIdOf('RELAY_REPLICA_ID', `relay-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);

  // Short: a dead replica's Companions must not look online for long. A replica presumed dead by mistake (a long
  // pause) loses nothing for good: it re-asserts the Companions it still holds when it hears of their release.
  const heartbeatSeconds = integer('RELAY_REPLICA_HEARTBEAT_SECONDS', 2, 1, 300);
  const timeoutSeconds = integer('RELAY_REPLICA_TIMEOUT_SECONDS', 10, 2, 3600);
  if (timeoutSeconds <= heartbeatSeconds * 2) fail('RELAY_REPLICA_TIMEOUT_SECONDS', `must exceed twice RELAY_REPLICA_HEARTBEAT_SECONDS (${heartbeatSeconds})`);

  const trustedRaw = value('RELAY_TRUSTED_PROXIES');
  const trusted = trustedRaw === undefined ? { proxies: TrustedProxies.none, invalid: [] } : TrustedProxies.parse(trustedRaw);
  if (trusted.invalid.length > 0) {
    fail('RELAY_TRUSTED_PROXIES', `must be a comma-separated list of IP addresses or CIDR blocks (${trusted.invalid.length} entr${trusted.invalid.length === 1 ? 'y is' : 'ies are'} not)`);
  }
  if (value('RELAY_TRUST_PROXY') !== undefined) {
    fail('RELAY_TRUST_PROXY', 'was replaced by RELAY_TRUSTED_PROXIES (the addresses or CIDR blocks of your proxies): the left-most X-Forwarded-For entry is written by the client');
  }

  const config: RelayGatewayConfig = {
    platform: platform as PlatformConfig,
    embedded,
    dataDir,
    http,
    grpc,
    operator,
    publicBaseUrl,
    tls,
    serviceCredentialDigests,
    pairingCode: { defaultTtlSeconds, maxTtlSeconds },
    browserTicket: { ttlSeconds: integer('RELAY_BROWSER_TICKET_TTL_SECONDS', 60, 5, 600) },
    enrollment: {
      rateLimitPerWindow: integer('RELAY_ENROLLMENT_RATE_LIMIT', 10, 1, 100_000),
      rateLimitWindowSeconds: integer('RELAY_ENROLLMENT_RATE_WINDOW_SECONDS', 60, 1, 86_400),
    },
    trustedProxies: trusted.proxies,
    replicaId,
    replicaLiveness: { heartbeatSeconds, timeoutSeconds },
    workspaceCards: readWorkspaceCardConfig(reader, readFile, absolute),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    producer: `${RELAY_GATEWAY_SERVICE_NAME}@${RELAY_GATEWAY_VERSION}`,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Every variable the gateway reads from `env` (its own, the platform's and the data plane's), as the readers
 * themselves look them up: deployment manifests are checked against it. A digests file is named, not read.
 */
export function relayGatewayVariables(env: Env): string[] {
  const own = variablesRead((recorded) => loadRelayGatewayConfig(recorded, { readFile: () => '' }), env);
  return [...new Set([...own, ...variablesRead(loadDataPlaneConfig, env)])].sort();
}
