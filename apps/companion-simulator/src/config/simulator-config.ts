/**
 * The simulator's configuration: read once at startup from the environment (CLI flags are folded into the
 * same variables first, see cli/simulator-cli.ts), validated whole, and refused with one message naming
 * every variable at fault. Secrets (pairing code, control credentials) are kept out of every message.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `RELAY_GATEWAY_URL` | — (required) | gateway base URL: `https://` or `wss://`; `http://`/`ws://` only for loopback |
 * | `RELAY_GATEWAY_CA_FILE` | — | PEM file with the CA or certificate to trust for the gateway (its self-signed dev certificate) |
 * | `RELAY_GATEWAY_INSECURE_DEV` | `false` | `true` skips certificate verification; loopback gateways only |
 * | `SIMULATOR_PAIRING_CODE` | — | one-time pairing code to enroll with (§12); a secret, never logged |
 * | `SIMULATOR_CREDENTIAL_FILE` | `.data/companion-simulator/device-credential.json` | where the device credential is kept (mode 0600) |
 * | `SIMULATOR_WIRE_VERSION` | `1.2` | Wire version of `device.connect`: `1.2` (the seed's version) or `1.1` (for 1.1-only tickets) |
 * | `SIMULATOR_E2EE_PRIVATE_KEY_FILE` | — | the Companion's X25519 private key (base64url PKCS#8 or a JWK), with the next |
 * | `SIMULATOR_E2EE_PEER_PUBLIC_KEY` | — | the browser's X25519 public key (base64url raw); both or neither |
 * | `SIMULATOR_E2EE_REPLAY_JOURNAL_FILE` | `e2ee-replay-journal.jsonl` beside the credential file | the envelopes opened within the clock skew allowance, kept across restarts |
 * | `SIMULATOR_SCENARIO_FILE` | — | scenario (JSON or YAML) to run once connected |
 * | `SIMULATOR_COUNTERPARTY_REQUEST` | — | instead of a file: play the built-in counterparty request of that name (`invoice-reminder`, `bank-detail-change`) |
 * | `SIMULATOR_SHIELD_ADDRESS` | — | the Shield's gRPC `host:port`; counterparty requests are checked there before their approval (unset: not checked) |
 * | `SIMULATOR_SHIELD_CREDENTIAL` | — | bearer for the Shield: an operator credential or an agent token (`tmsa_…`); a secret, never logged |
 * | `SIMULATOR_SHIELD_CREDENTIAL_FILE` | — | instead of the previous: a file holding it (a mounted Secret) |
 * | `SIMULATOR_SHIELD_TLS` | `false` on loopback, else `true` | gRPC to the Shield over TLS; `false` off loopback only for a hop protected otherwise (NetworkPolicies, a mesh's mTLS) |
 * | `SIMULATOR_SHIELD_TLS_CA_FILE` | — | PEM of the CA to trust for the Shield instead of the system roots |
 * | `SIMULATOR_SHIELD_AGENT_ID` | the device id | the protected agent the Shield's cases are opened for (an agent token's own agent) |
 * | `SIMULATOR_SHIELD_DEADLINE_MS` | `5000` | deadline of each Shield call; past it the approval goes out saying the Shield could not be consulted |
 * | `SIMULATOR_CONTROL_CREDENTIAL` | — | bearer credential of gRPC SimulatorControl (≥16 chars); unset = not served |
 * | `SIMULATOR_CONTROL_ADDRESS` | `127.0.0.1:50071` | where SimulatorControl listens |
 * | `RELAY_CONTROL_ADDRESS` | — | the gateway's gRPC RelayControl `host:port` (load mode) |
 * | `RELAY_CONTROL_CREDENTIAL` | — | service credential for RelayControl (load mode); a secret, never logged |
 * | `RELAY_CONTROL_CREDENTIAL_FILE` | — | instead of the previous: a file holding it (a mounted Secret) |
 * | `RELAY_CONTROL_TLS` | `false` on loopback, else `true` | gRPC to RelayControl over TLS; `false` off loopback only for a hop protected otherwise |
 * | `RELAY_CONTROL_TLS_CA_FILE` | `RELAY_GATEWAY_CA_FILE` | PEM of the CA to trust for RelayControl instead of the system roots |
 * | `SIMULATOR_HEARTBEAT_TIMEOUT_MS` | `75000` | a socket that receives nothing (not even a ping) this long is dropped (0 = never) |
 * | `SIMULATOR_REQUEST_POLICY` | `all` | `all`: every method of the Wire version is served (to show each one's semantics); `production`: the spec's production list |
 * | `SIMULATOR_DENY_METHODS` | — | comma-separated methods refused with `REMOTE_REQUEST_DENIED` |
 * | `SIMULATOR_APPROVAL_POLICY` | `allow` | local approval policy: `allow`, `deny` or `require-local-confirmation` (§8) |
 * | `SIMULATOR_APP_RESULT_GRANTS` | — | comma-separated `agent/tool` pairs whose app results browsers may read (1.2) |
 * | `SIMULATOR_SENTINEL` | — | marker planted in every secret-bearing raw runtime field (leak tests use `relay-security-sentinel`) |
 * | `SIMULATOR_SEED` | random | seed of the simulated runtime's ids and content |
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { ConfigError, envReader, grpcClientVariables, isLoopbackHost, readGrpcClientTarget, variablesRead, type ConfigProblem, type GrpcClientTarget } from '@trustmesh/platform-config';
import { COUNTERPARTY_REQUEST_NAMES, type CounterpartyRequestName } from '@trustmesh/relay-companion-sim';

export { ConfigError, isLoopbackHost, type ConfigProblem };

/** RELAY_CONTROL_ADDRESS, _CREDENTIAL, _CREDENTIAL_FILE, _TLS, _TLS_CA_FILE. */
const RELAY_CONTROL_CLIENT_VARIABLES = grpcClientVariables('RELAY_CONTROL');
/** SIMULATOR_SHIELD_ADDRESS, _CREDENTIAL, _CREDENTIAL_FILE, _TLS, _TLS_CA_FILE. */
const SHIELD_CLIENT_VARIABLES = grpcClientVariables('SIMULATOR_SHIELD');

export type SimulatorWireVersion = '1.2' | '1.1';

/** What the command about to run needs; each mode requires a different subset of the variables. */
export type SimulatorMode = 'enroll' | 'unenroll' | 'run' | 'scenario' | 'load';

export interface GatewayEndpoints {
  /** `https://host:port/base` or `http://` on loopback. */
  httpBase: string;
  /** `wss://host:port/base` or `ws://` on loopback. */
  wsBase: string;
  redeemUrl: string;
  companionUrl: string;
  /** True when the host is a loopback address (plain transports and insecure TLS are allowed only then). */
  loopback: boolean;
  /** Whether the transport is TLS (https/wss). */
  secure: boolean;
}

/** How to trust the gateway's certificate. `ca` undefined means the system roots. */
export interface TlsTrust {
  ca?: Buffer;
  insecureDev: boolean;
}

export interface SimulatorConfig {
  gateway: GatewayEndpoints;
  tls: TlsTrust;
  /** A secret: never log it. Null when not given. */
  pairingCode: string | null;
  credentialFile: string;
  wireVersion: SimulatorWireVersion;
  encryption: { privateKeyFile: string; peerPublicKey: string; replayJournalFile: string } | null;
  scenarioFile: string | null;
  /** A built-in counterparty request to play instead of a scenario file. */
  counterpartyRequest: CounterpartyRequestName | null;
  shield: ShieldTarget | null;
  control: { address: string; credential: string } | null;
  /** GET /metrics, /healthz, /readyz on a plain listener of their own (`SIMULATOR_OPERATOR_ADDRESS`); null when unset. */
  operator: { host: string; port: number } | null;
  /** RelayControl for the load mode; its credential prints as `[redacted]`. */
  relayControl: GrpcClientTarget | null;
  heartbeatTimeoutMs: number;
  companion: CompanionBehaviour;
}

/** Where the Shield is consulted on counterparty requests; the credential (operator or agent token) never prints. */
export interface ShieldTarget extends GrpcClientTarget {
  /** The protected agent's id; null means the device id. */
  agentId: string | null;
  deadlineMs: number;
}

export type ApprovalPolicyName = 'allow' | 'deny' | 'require-local-confirmation';

/** How the simulated Companion behaves toward requests (policies of §8 and §10) and what its runtime plants. */
export interface CompanionBehaviour {
  requestPolicy: 'all' | 'production';
  denyMethods: string[];
  approvalPolicy: ApprovalPolicyName;
  appResultGrants: Array<{ agentName: string; toolName: string }>;
  sentinel: string | null;
  seed: number | null;
}

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_CREDENTIAL_FILE = '.data/companion-simulator/device-credential.json';
export const DEFAULT_CONTROL_ADDRESS = '127.0.0.1:50071';
const MAX_PAIRING_CODE_BYTES = 4096;
const MIN_CREDENTIAL_LENGTH = 16;
const MAX_CREDENTIAL_LENGTH = 4096;
const HOST_PORT = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/;
const BASE64URL = /^[A-Za-z0-9_-]{16,256}$/;

/** Parses and checks a gateway base URL; returns the endpoints or a problem message (never the URL's credentials). */
export function gatewayEndpoints(raw: string): GatewayEndpoints | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be a URL such as https://relay.example.com or wss://127.0.0.1:8443';
  }
  const scheme = url.protocol.slice(0, -1);
  if (!['https', 'wss', 'http', 'ws'].includes(scheme)) return `must use https:// or wss:// (got ${scheme}://)`;
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.search !== '' || url.hash !== '') return 'must not carry a query or fragment';
  const loopback = isLoopbackHost(url.hostname);
  const secure = scheme === 'https' || scheme === 'wss';
  if (!secure && !loopback) return `may use ${scheme}:// only for a loopback host (localhost, 127.0.0.1, ::1); use https:// or wss://`;
  const base = `${url.host}${url.pathname.replace(/\/+$/, '')}`;
  const httpBase = `${secure ? 'https' : 'http'}://${base}`;
  const wsBase = `${secure ? 'wss' : 'ws'}://${base}`;
  return {
    httpBase,
    wsBase,
    redeemUrl: `${httpBase}/v1/device-enrollments/redeem`,
    companionUrl: `${wsBase}/v1/companion`,
    loopback,
    secure,
  };
}

/** Reads and validates the configuration for `mode`; throws a `ConfigError` naming every bad variable. */
export function loadSimulatorConfig(env: Env, mode: SimulatorMode): SimulatorConfig {
  const problems: ConfigProblem[] = [];
  const fail = (variable: string, message: string) => problems.push({ variable, message });
  const value = (variable: string): string | undefined => {
    const raw = env[variable];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
  const flag = (variable: string, fallback: boolean): boolean => {
    const raw = value(variable);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    fail(variable, `must be "true" or "false" (got ${JSON.stringify(raw.slice(0, 20))})`);
    return fallback;
  };
  const integer = (variable: string, fallback: number, min: number, max: number): number => {
    const raw = value(variable);
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      fail(variable, `must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw.slice(0, 20))})`);
      return fallback;
    }
    return parsed;
  };
  const readableFile = (variable: string, path: string): Buffer | undefined => {
    try {
      if (!statSync(path).isFile()) {
        fail(variable, `${JSON.stringify(path)} is not a file`);
        return undefined;
      }
      const content = readFileSync(path);
      if (content.length > 1024 * 1024) {
        fail(variable, `${JSON.stringify(path)} is larger than 1 MiB`);
        return undefined;
      }
      return content;
    } catch {
      fail(variable, `cannot read ${JSON.stringify(path)} (missing or not readable)`);
      return undefined;
    }
  };

  // Gateway endpoints and TLS trust.
  const gatewayRaw = value('RELAY_GATEWAY_URL');
  let gateway: GatewayEndpoints = {
    httpBase: '',
    wsBase: '',
    redeemUrl: '',
    companionUrl: '',
    loopback: false,
    secure: true,
  };
  if (gatewayRaw === undefined) {
    if (mode !== 'unenroll') fail('RELAY_GATEWAY_URL', 'is required (the gateway base URL, e.g. https://127.0.0.1:8443)');
  } else {
    const parsed = gatewayEndpoints(gatewayRaw);
    if (typeof parsed === 'string') fail('RELAY_GATEWAY_URL', parsed);
    else gateway = parsed;
  }

  const tls: TlsTrust = { insecureDev: flag('RELAY_GATEWAY_INSECURE_DEV', false) };
  const caFile = value('RELAY_GATEWAY_CA_FILE');
  if (caFile !== undefined) {
    const ca = readableFile('RELAY_GATEWAY_CA_FILE', caFile);
    if (ca !== undefined) {
      if (!ca.toString('utf8').includes('-----BEGIN CERTIFICATE-----')) {
        fail('RELAY_GATEWAY_CA_FILE', `${JSON.stringify(caFile)} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
      } else {
        tls.ca = ca;
      }
    }
  }
  if (tls.insecureDev) {
    if (gatewayRaw !== undefined && !gateway.loopback) {
      fail('RELAY_GATEWAY_INSECURE_DEV', 'is allowed only for a loopback gateway; trust its certificate with RELAY_GATEWAY_CA_FILE instead');
    }
    if (caFile !== undefined) fail('RELAY_GATEWAY_INSECURE_DEV', 'cannot be combined with RELAY_GATEWAY_CA_FILE; choose one');
  }

  // Enrollment: a one-time code, or the credential stored by an earlier enrollment.
  const pairingCode = value('SIMULATOR_PAIRING_CODE') ?? null;
  if (pairingCode !== null && new TextEncoder().encode(pairingCode).length > MAX_PAIRING_CODE_BYTES) {
    fail('SIMULATOR_PAIRING_CODE', `must be at most ${MAX_PAIRING_CODE_BYTES} bytes`);
  }
  if (mode === 'enroll' && pairingCode === null) fail('SIMULATOR_PAIRING_CODE', 'is required to enroll (the one-time code from the cloud UI)');
  const credentialFile = value('SIMULATOR_CREDENTIAL_FILE') ?? DEFAULT_CREDENTIAL_FILE;
  if (mode === 'run' || mode === 'scenario') {
    let stored = false;
    try {
      stored = statSync(credentialFile).isFile();
    } catch {
      stored = false;
    }
    if (!stored && pairingCode === null) {
      fail('SIMULATOR_PAIRING_CODE', `is required: no stored credential at SIMULATOR_CREDENTIAL_FILE (${JSON.stringify(credentialFile)}); enroll with a pairing code first`);
    }
    if (stored && pairingCode !== null) {
      fail('SIMULATOR_PAIRING_CODE', `must not be set: a device is already enrolled in ${JSON.stringify(credentialFile)}; unenroll first to enroll again`);
    }
  }

  // 1.2 by default: a 1.2-only browser ticket is refused (4008) by a Companion that speaks only 1.1.
  const versionRaw = value('SIMULATOR_WIRE_VERSION') ?? '1.2';
  let wireVersion: SimulatorWireVersion = '1.2';
  if (versionRaw === '1.2' || versionRaw === '1.1') wireVersion = versionRaw;
  else fail('SIMULATOR_WIRE_VERSION', `must be "1.2" or "1.1" (got ${JSON.stringify(versionRaw.slice(0, 20))}); Wire 1.0 is not safe remotely`);

  // Optional end-to-end encryption.
  let encryption: SimulatorConfig['encryption'] = null;
  const privateKeyFile = value('SIMULATOR_E2EE_PRIVATE_KEY_FILE');
  const peerPublicKey = value('SIMULATOR_E2EE_PEER_PUBLIC_KEY');
  if ((privateKeyFile === undefined) !== (peerPublicKey === undefined)) {
    fail(
      privateKeyFile === undefined ? 'SIMULATOR_E2EE_PRIVATE_KEY_FILE' : 'SIMULATOR_E2EE_PEER_PUBLIC_KEY',
      'is required when end-to-end encryption is configured: set both SIMULATOR_E2EE_PRIVATE_KEY_FILE and SIMULATOR_E2EE_PEER_PUBLIC_KEY, or neither',
    );
  } else if (privateKeyFile !== undefined && peerPublicKey !== undefined) {
    const keyOk = readableFile('SIMULATOR_E2EE_PRIVATE_KEY_FILE', privateKeyFile) !== undefined;
    const peerOk = BASE64URL.test(peerPublicKey);
    if (!peerOk) fail('SIMULATOR_E2EE_PEER_PUBLIC_KEY', 'must be the browser\'s raw X25519 public key in base64url');
    // Beside the device credential by default: a journal belongs to one Companion, as the device does.
    const replayJournalFile = value('SIMULATOR_E2EE_REPLAY_JOURNAL_FILE') ?? join(dirname(credentialFile), 'e2ee-replay-journal.jsonl');
    if (keyOk && peerOk) encryption = { privateKeyFile, peerPublicKey, replayJournalFile };
  }

  const scenarioFile = value('SIMULATOR_SCENARIO_FILE') ?? null;
  const counterpartyRaw = value('SIMULATOR_COUNTERPARTY_REQUEST');
  let counterpartyRequest: CounterpartyRequestName | null = null;
  if (counterpartyRaw !== undefined) {
    if ((COUNTERPARTY_REQUEST_NAMES as string[]).includes(counterpartyRaw)) counterpartyRequest = counterpartyRaw as CounterpartyRequestName;
    else fail('SIMULATOR_COUNTERPARTY_REQUEST', `must be one of ${COUNTERPARTY_REQUEST_NAMES.join(', ')} (got ${JSON.stringify(counterpartyRaw.slice(0, 40))})`);
    if (scenarioFile !== null) fail('SIMULATOR_COUNTERPARTY_REQUEST', 'cannot be combined with SIMULATOR_SCENARIO_FILE; choose one');
  }
  if (scenarioFile !== null) readableFile('SIMULATOR_SCENARIO_FILE', scenarioFile);
  else if (mode === 'scenario' && counterpartyRaw === undefined) {
    fail('SIMULATOR_SCENARIO_FILE', 'is required for the scenario command (a JSON or YAML scenario file, or a built-in SIMULATOR_COUNTERPARTY_REQUEST)');
  }
  const shield = shieldTarget(env, problems);

  // gRPC SimulatorControl: served only with a credential.
  let control: SimulatorConfig['control'] = null;
  const controlCredential = value('SIMULATOR_CONTROL_CREDENTIAL');
  const controlAddress = value('SIMULATOR_CONTROL_ADDRESS') ?? DEFAULT_CONTROL_ADDRESS;
  if (!HOST_PORT.test(controlAddress) || Number(HOST_PORT.exec(controlAddress)?.[1]) > 65535) {
    fail('SIMULATOR_CONTROL_ADDRESS', 'must be host:port (e.g. 127.0.0.1:50071; port 0 picks a free one)');
  }
  if (controlCredential !== undefined) {
    if (controlCredential.length < MIN_CREDENTIAL_LENGTH || controlCredential.length > MAX_CREDENTIAL_LENGTH) {
      fail('SIMULATOR_CONTROL_CREDENTIAL', `must be ${MIN_CREDENTIAL_LENGTH} to ${MAX_CREDENTIAL_LENGTH} characters`);
    } else {
      control = { address: controlAddress, credential: controlCredential };
    }
  } else if (value('SIMULATOR_CONTROL_ADDRESS') !== undefined) {
    fail('SIMULATOR_CONTROL_CREDENTIAL', 'is required when SIMULATOR_CONTROL_ADDRESS is set: SimulatorControl is never anonymous');
  }

  // The operator port: off unless asked for, since several simulators often share a machine.
  let operator: SimulatorConfig['operator'] = null;
  const operatorAddress = value('SIMULATOR_OPERATOR_ADDRESS');
  if (operatorAddress !== undefined) {
    const match = HOST_PORT.exec(operatorAddress);
    if (!match || Number(match[1]) > 65535) fail('SIMULATOR_OPERATOR_ADDRESS', 'must be host:port (e.g. 127.0.0.1:9466; port 0 picks a free one)');
    else operator = { host: operatorAddress.slice(0, operatorAddress.lastIndexOf(':')).replace(/^\[|\]$/g, ''), port: Number(match[1]) };
  }

  // The gateway's RelayControl, for the load mode's provisioning: the platform's one rule for a gRPC client.
  const relayControl = relayControlTarget(env, problems, mode, tls.ca ?? null);

  const policyRaw = value('SIMULATOR_REQUEST_POLICY') ?? 'all';
  let requestPolicy: CompanionBehaviour['requestPolicy'] = 'all';
  if (policyRaw === 'all' || policyRaw === 'production') requestPolicy = policyRaw;
  else fail('SIMULATOR_REQUEST_POLICY', 'must be "all" or "production"');
  const denyMethods = (value('SIMULATOR_DENY_METHODS') ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '');
  const badMethod = denyMethods.find((m) => !/^[a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)+$/.test(m));
  if (badMethod !== undefined) fail('SIMULATOR_DENY_METHODS', `must be a comma-separated list of method names such as thread.delete (not ${JSON.stringify(badMethod.slice(0, 40))})`);
  const approvalRaw = value('SIMULATOR_APPROVAL_POLICY') ?? 'allow';
  let approvalPolicy: ApprovalPolicyName = 'allow';
  if (approvalRaw === 'allow' || approvalRaw === 'deny' || approvalRaw === 'require-local-confirmation') approvalPolicy = approvalRaw;
  else fail('SIMULATOR_APPROVAL_POLICY', 'must be "allow", "deny" or "require-local-confirmation"');
  const appResultGrants: CompanionBehaviour['appResultGrants'] = [];
  for (const pair of (value('SIMULATOR_APP_RESULT_GRANTS') ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const [agentName, toolName, extra] = pair.split('/');
    if (!agentName || !toolName || extra !== undefined) {
      fail('SIMULATOR_APP_RESULT_GRANTS', `must be a comma-separated list of agent/tool pairs (not ${JSON.stringify(pair.slice(0, 60))})`);
      break;
    }
    appResultGrants.push({ agentName, toolName });
  }
  const sentinel = value('SIMULATOR_SENTINEL') ?? null;
  if (sentinel !== null && sentinel.length > 200) fail('SIMULATOR_SENTINEL', 'must be at most 200 characters');
  const seedRaw = value('SIMULATOR_SEED');
  const seed = seedRaw === undefined ? null : integer('SIMULATOR_SEED', 0, 0, 2 ** 31 - 1);

  const config: SimulatorConfig = {
    gateway,
    tls,
    pairingCode,
    credentialFile,
    wireVersion,
    encryption,
    scenarioFile,
    counterpartyRequest,
    shield,
    control,
    operator,
    relayControl,
    heartbeatTimeoutMs: integer('SIMULATOR_HEARTBEAT_TIMEOUT_MS', 75_000, 0, 3_600_000),
    companion: { requestPolicy, denyMethods, approvalPolicy, appResultGrants, sentinel, seed },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * The Shield target, read by the platform's one rule for a gRPC client (`readGrpcClientTarget`): the address
 * and the credential together or neither, TLS unless the Shield is on loopback or SIMULATOR_SHIELD_TLS=false
 * says the hop is protected otherwise (a pod-to-pod call behind NetworkPolicies, a mesh doing mTLS).
 */
function shieldTarget(env: Env, problems: ConfigProblem[]): ShieldTarget | null {
  const reader = envReader(env, problems);
  const agentId = reader.value('SIMULATOR_SHIELD_AGENT_ID') ?? null;
  const deadlineMs = reader.integer('SIMULATOR_SHIELD_DEADLINE_MS', 5_000, 100, 60_000);
  if (agentId !== null && agentId.length > 200) reader.fail('SIMULATOR_SHIELD_AGENT_ID', 'must be at most 200 characters');
  const target = readGrpcClientTarget(reader, SHIELD_CLIENT_VARIABLES, { peer: 'the Shield' });
  return target === null ? null : { ...target, agentId, deadlineMs };
}

/**
 * RelayControl, read by the platform's one rule for a gRPC client, as the Shield is: required in load mode,
 * optional otherwise (SimulatorControl's StartLoad needs it). Over TLS it trusts RELAY_CONTROL_TLS_CA_FILE,
 * else the gateway's RELAY_GATEWAY_CA_FILE (one gateway, one certificate: the variable it always used), else
 * the system's CAs.
 */
function relayControlTarget(env: Env, problems: ConfigProblem[], mode: SimulatorMode, gatewayCa: Buffer | null): GrpcClientTarget | null {
  const target = readGrpcClientTarget(envReader(env, problems), RELAY_CONTROL_CLIENT_VARIABLES, { peer: "the gateway's RelayControl", required: mode === 'load' });
  if (target?.tls && target.tls.ca === null && gatewayCa !== null) return { ...target, tls: { ca: gatewayCa } };
  return target;
}

/** Every variable the simulator reads from `env` for `mode`, as its reader looks them up: manifests are checked against it. */
export const simulatorVariables = (env: Env, mode: SimulatorMode): string[] => variablesRead((recorded) => loadSimulatorConfig(recorded, mode), env);
