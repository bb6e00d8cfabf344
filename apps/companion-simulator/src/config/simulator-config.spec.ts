import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ConfigError, gatewayEndpoints, isLoopbackHost, loadSimulatorConfig, type Env } from './simulator-config';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function problemsOf(env: Env, mode: Parameters<typeof loadSimulatorConfig>[1] = 'enroll'): Record<string, string> {
  try {
    loadSimulatorConfig(env, mode);
    return {};
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return Object.fromEntries(error.problems.map((p) => [p.variable, p.message]));
  }
}

function problemList(env: Env, mode: Parameters<typeof loadSimulatorConfig>[1]): ConfigError['problems'] {
  try {
    loadSimulatorConfig(env, mode);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

describe('simulator configuration', () => {
  let dir: string;
  let caFile: string;
  let credentialFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-config-'));
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, PEM);
    credentialFile = join(dir, 'device.json');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('derives the enrollment and companion endpoints from an https base URL', () => {
    const config = loadSimulatorConfig({ RELAY_GATEWAY_URL: 'https://relay.example.com/base/', SIMULATOR_PAIRING_CODE: 'code' }, 'enroll');
    expect(config.gateway).toEqual({
      httpBase: 'https://relay.example.com/base',
      wsBase: 'wss://relay.example.com/base',
      redeemUrl: 'https://relay.example.com/base/v1/device-enrollments/redeem',
      companionUrl: 'wss://relay.example.com/base/v1/companion',
      loopback: false,
      secure: true,
    });
    expect(config.wireVersion).toBe('1.2');
    expect(config.control).toBeNull();
  });

  it('accepts a wss base URL and plain transports on loopback only', () => {
    expect(gatewayEndpoints('wss://127.0.0.1:8443')).toMatchObject({ redeemUrl: 'https://127.0.0.1:8443/v1/device-enrollments/redeem' });
    expect(gatewayEndpoints('http://localhost:8080')).toMatchObject({ companionUrl: 'ws://localhost:8080/v1/companion', loopback: true });
    expect(gatewayEndpoints('ws://[::1]:8080')).toMatchObject({ loopback: true });
    expect(problemsOf({ RELAY_GATEWAY_URL: 'http://relay.example.com', SIMULATOR_PAIRING_CODE: 'c' }).RELAY_GATEWAY_URL).toMatch(/only for a loopback host/);
    expect(problemsOf({ RELAY_GATEWAY_URL: 'ftp://127.0.0.1', SIMULATOR_PAIRING_CODE: 'c' }).RELAY_GATEWAY_URL).toMatch(/https:\/\/ or wss:\/\//);
    expect(problemsOf({ RELAY_GATEWAY_URL: 'not a url', SIMULATOR_PAIRING_CODE: 'c' }).RELAY_GATEWAY_URL).toMatch(/must be a URL/);
    expect(problemsOf({ RELAY_GATEWAY_URL: 'https://user:pw@relay.example.com', SIMULATOR_PAIRING_CODE: 'c' }).RELAY_GATEWAY_URL).toMatch(/user name or password/);
    expect(isLoopbackHost('127.10.0.1')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
  });

  it('names every bad variable at once, without echoing secrets', () => {
    const secretCode = 'x'.repeat(5000);
    const problems = problemsOf({
      RELAY_GATEWAY_URL: 'http://relay.example.com',
      SIMULATOR_PAIRING_CODE: secretCode,
      SIMULATOR_WIRE_VERSION: '1.0',
      SIMULATOR_CONTROL_CREDENTIAL: 'short',
      SIMULATOR_HEARTBEAT_TIMEOUT_MS: '-1',
    });
    expect(Object.keys(problems).sort()).toEqual([
      'RELAY_GATEWAY_URL',
      'SIMULATOR_CONTROL_CREDENTIAL',
      'SIMULATOR_HEARTBEAT_TIMEOUT_MS',
      'SIMULATOR_PAIRING_CODE',
      'SIMULATOR_WIRE_VERSION',
    ]);
    expect(JSON.stringify(problems)).not.toContain(secretCode.slice(0, 100));
    expect(problems.SIMULATOR_WIRE_VERSION).toMatch(/"1\.2" or "1\.1"/);
  });

  it('requires the gateway URL, and a pairing code to enroll', () => {
    expect(problemsOf({}, 'enroll')).toEqual({
      RELAY_GATEWAY_URL: expect.stringMatching(/is required/),
      SIMULATOR_PAIRING_CODE: expect.stringMatching(/is required to enroll/),
    });
    expect(problemsOf({}, 'unenroll')).toEqual({});
  });

  it('runs with a pairing code or a stored credential, never both', () => {
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_CREDENTIAL_FILE: credentialFile };
    expect(problemsOf(base, 'run').SIMULATOR_PAIRING_CODE).toMatch(/no stored credential/);
    expect(problemsOf({ ...base, SIMULATOR_PAIRING_CODE: 'code' }, 'run')).toEqual({});
    writeFileSync(credentialFile, '{}', { mode: 0o600 });
    try {
      expect(problemsOf(base, 'run')).toEqual({});
      expect(problemsOf({ ...base, SIMULATOR_PAIRING_CODE: 'code' }, 'run').SIMULATOR_PAIRING_CODE).toMatch(/unenroll first/);
    } finally {
      rmSync(credentialFile);
    }
  });

  it('trusts a CA file, and allows the insecure flag only for a loopback gateway', () => {
    const config = loadSimulatorConfig({ RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c', RELAY_GATEWAY_CA_FILE: caFile }, 'enroll');
    expect(config.tls.ca?.toString()).toBe(PEM);
    expect(loadSimulatorConfig({ RELAY_GATEWAY_URL: 'https://127.0.0.1:8443', SIMULATOR_PAIRING_CODE: 'c', RELAY_GATEWAY_INSECURE_DEV: 'true' }, 'enroll').tls).toEqual({ insecureDev: true });
    expect(problemsOf({ RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c', RELAY_GATEWAY_INSECURE_DEV: 'true' }).RELAY_GATEWAY_INSECURE_DEV).toMatch(/only for a loopback/);
    expect(problemsOf({ RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c', RELAY_GATEWAY_INSECURE_DEV: 'yes' }).RELAY_GATEWAY_INSECURE_DEV).toMatch(/"true" or "false"/);
    expect(problemsOf({ RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c', RELAY_GATEWAY_CA_FILE: join(dir, 'missing.pem') }).RELAY_GATEWAY_CA_FILE).toMatch(/cannot read/);
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    expect(problemsOf({ RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c', RELAY_GATEWAY_CA_FILE: notPem }).RELAY_GATEWAY_CA_FILE).toMatch(/no PEM certificate/);
  });

  it('needs both encryption keys or neither', () => {
    const keyFile = join(dir, 'key.jwk');
    writeFileSync(keyFile, '{}');
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c' };
    expect(problemsOf({ ...base, SIMULATOR_E2EE_PRIVATE_KEY_FILE: keyFile }).SIMULATOR_E2EE_PEER_PUBLIC_KEY).toMatch(/set both/);
    expect(problemsOf({ ...base, SIMULATOR_E2EE_PEER_PUBLIC_KEY: 'A'.repeat(43) }).SIMULATOR_E2EE_PRIVATE_KEY_FILE).toMatch(/set both/);
    expect(problemsOf({ ...base, SIMULATOR_E2EE_PRIVATE_KEY_FILE: keyFile, SIMULATOR_E2EE_PEER_PUBLIC_KEY: 'not base64url!' }).SIMULATOR_E2EE_PEER_PUBLIC_KEY).toMatch(/base64url/);
    expect(loadSimulatorConfig({ ...base, SIMULATOR_E2EE_PRIVATE_KEY_FILE: keyFile, SIMULATOR_E2EE_PEER_PUBLIC_KEY: 'A'.repeat(43) }, 'enroll').encryption).toEqual({
      privateKeyFile: keyFile,
      peerPublicKey: 'A'.repeat(43),
      replayJournalFile: join('.data/companion-simulator', 'e2ee-replay-journal.jsonl'),
    });
  });

  it('serves SimulatorControl only with a credential', () => {
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c' };
    expect(problemsOf({ ...base, SIMULATOR_CONTROL_ADDRESS: '127.0.0.1:5000' }).SIMULATOR_CONTROL_CREDENTIAL).toMatch(/never anonymous/);
    expect(loadSimulatorConfig({ ...base, SIMULATOR_CONTROL_CREDENTIAL: 'control-credential-0123' }, 'enroll').control).toEqual({
      address: '127.0.0.1:50071',
      credential: 'control-credential-0123',
    });
    expect(problemsOf({ ...base, SIMULATOR_CONTROL_CREDENTIAL: 'control-credential-0123', SIMULATOR_CONTROL_ADDRESS: 'nowhere' }).SIMULATOR_CONTROL_ADDRESS).toMatch(/host:port/);
  });

  it('reads RelayControl by the platform\'s gRPC client rule: required for load mode, TLS off loopback, the credential a secret', () => {
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com' };
    const codes = (env: Record<string, string>) => Object.fromEntries(problemList(env, 'load').map((problem) => [problem.variable, problem.code]));
    expect(codes(base)).toEqual({ RELAY_CONTROL_ADDRESS: 'GRPC_TARGET_ADDRESS_REQUIRED', RELAY_CONTROL_CREDENTIAL: 'GRPC_TARGET_CREDENTIAL_REQUIRED' });
    const loopback = loadSimulatorConfig({ ...base, RELAY_CONTROL_ADDRESS: '127.0.0.1:50051', RELAY_CONTROL_CREDENTIAL: 'service-credential-0123' }, 'load').relayControl;
    expect(loopback).toMatchObject({ address: '127.0.0.1:50051', loopback: true, tls: null });
    expect(loopback?.credential.reveal()).toBe('service-credential-0123');
    expect(JSON.stringify(loopback)).not.toContain('service-credential-0123');
    // Off loopback: TLS unless RELAY_CONTROL_TLS=false says the hop is protected otherwise; it trusts the gateway's CA.
    const remote = loadSimulatorConfig({ ...base, RELAY_CONTROL_ADDRESS: 'relay.example.com:50051', RELAY_CONTROL_CREDENTIAL: 'service-credential-0123', RELAY_GATEWAY_CA_FILE: caFile }, 'load').relayControl;
    expect(remote?.tls?.ca?.toString('utf8')).toContain('BEGIN CERTIFICATE');
    expect(loadSimulatorConfig({ ...base, RELAY_CONTROL_ADDRESS: 'relay.example.com:50051', RELAY_CONTROL_CREDENTIAL: 'service-credential-0123', RELAY_CONTROL_TLS: 'false' }, 'load').relayControl?.tls).toBeNull();
    expect(codes({ ...base, RELAY_CONTROL_ADDRESS: 'relay.example.com:50051', RELAY_CONTROL_CREDENTIAL: 'service-credential-0123', RELAY_CONTROL_TLS: 'false', RELAY_CONTROL_TLS_CA_FILE: caFile })).toEqual({
      RELAY_CONTROL_TLS_CA_FILE: 'GRPC_TARGET_CA_WITHOUT_TLS',
    });
    expect(codes({ ...base, RELAY_CONTROL_ADDRESS: 'nowhere', RELAY_CONTROL_CREDENTIAL: 'short secret' })).toEqual({ RELAY_CONTROL_ADDRESS: 'GRPC_TARGET_ADDRESS_INVALID', RELAY_CONTROL_CREDENTIAL: 'GRPC_TARGET_CREDENTIAL_INVALID' });
    expect(JSON.stringify(problemList({ ...base, RELAY_CONTROL_ADDRESS: '127.0.0.1:50051', RELAY_CONTROL_CREDENTIAL: 'short secret' }, 'load'))).not.toContain('short secret');
  });

  it('requires a readable scenario file for the scenario command', () => {
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c', SIMULATOR_CREDENTIAL_FILE: credentialFile };
    expect(problemsOf(base, 'scenario').SIMULATOR_SCENARIO_FILE).toMatch(/is required/);
    expect(problemsOf({ ...base, SIMULATOR_SCENARIO_FILE: join(dir, 'nope.yaml') }, 'scenario').SIMULATOR_SCENARIO_FILE).toMatch(/cannot read/);
  });

  it('reads the Companion\'s policies and runtime options', () => {
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c' };
    expect(loadSimulatorConfig(base, 'enroll').companion).toEqual({
      requestPolicy: 'all',
      denyMethods: [],
      approvalPolicy: 'allow',
      appResultGrants: [],
      sentinel: null,
      seed: null,
    });
    expect(
      loadSimulatorConfig(
        {
          ...base,
          SIMULATOR_REQUEST_POLICY: 'production',
          SIMULATOR_DENY_METHODS: 'thread.delete, thread.rename',
          SIMULATOR_APPROVAL_POLICY: 'require-local-confirmation',
          SIMULATOR_APP_RESULT_GRANTS: 'assistant/run_tests',
          SIMULATOR_SENTINEL: 'relay-security-sentinel',
          SIMULATOR_SEED: '42',
        },
        'enroll',
      ).companion,
    ).toEqual({
      requestPolicy: 'production',
      denyMethods: ['thread.delete', 'thread.rename'],
      approvalPolicy: 'require-local-confirmation',
      appResultGrants: [{ agentName: 'assistant', toolName: 'run_tests' }],
      sentinel: 'relay-security-sentinel',
      seed: 42,
    });
    const problems = problemsOf({ ...base, SIMULATOR_REQUEST_POLICY: 'open', SIMULATOR_DENY_METHODS: 'rm -rf', SIMULATOR_APPROVAL_POLICY: 'maybe', SIMULATOR_APP_RESULT_GRANTS: 'tool', SIMULATOR_SEED: 'x' });
    expect(Object.keys(problems).sort()).toEqual(['SIMULATOR_APPROVAL_POLICY', 'SIMULATOR_APP_RESULT_GRANTS', 'SIMULATOR_DENY_METHODS', 'SIMULATOR_REQUEST_POLICY', 'SIMULATOR_SEED']);
  });

  it('configures the Shield by the platform\'s gRPC client rule: address and credential together, TLS off loopback unless set false, the secret never echoed', () => {
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'code' };
    expect(loadSimulatorConfig(base, 'enroll').shield).toBeNull();
    const secret = 'tmsa_0123456789abcdef.shield-secret';
    const local = loadSimulatorConfig({ ...base, SIMULATOR_SHIELD_ADDRESS: '127.0.0.1:50061', SIMULATOR_SHIELD_CREDENTIAL: secret }, 'enroll').shield;
    expect(local).toMatchObject({ address: '127.0.0.1:50061', loopback: true, tls: null, agentId: null, deadlineMs: 5000 });
    expect(local?.credential.reveal()).toBe(secret);
    expect(JSON.stringify(local)).not.toContain(secret);
    expect(loadSimulatorConfig({ ...base, SIMULATOR_SHIELD_ADDRESS: 'shield.example.com:443', SIMULATOR_SHIELD_CREDENTIAL: secret, SIMULATOR_SHIELD_AGENT_ID: 'agent-7' }, 'enroll').shield).toMatchObject({ tls: { ca: null }, agentId: 'agent-7' });
    // An in-cluster hop behind NetworkPolicies: plaintext because the operator said so.
    expect(loadSimulatorConfig({ ...base, SIMULATOR_SHIELD_ADDRESS: 'shield-analyzer:50061', SIMULATOR_SHIELD_CREDENTIAL: secret, SIMULATOR_SHIELD_TLS: 'false' }, 'enroll').shield).toMatchObject({ tls: null, loopback: false });
    const credentialFile = join(dir, 'shield.credential');
    writeFileSync(credentialFile, `${secret}\n`, { mode: 0o600 });
    expect(loadSimulatorConfig({ ...base, SIMULATOR_SHIELD_ADDRESS: 'shield-analyzer:50061', SIMULATOR_SHIELD_CREDENTIAL_FILE: credentialFile }, 'enroll').shield?.credential.reveal()).toBe(secret);
    const problems = problemsOf({ ...base, SIMULATOR_SHIELD_ADDRESS: 'shield.example.com:443', SIMULATOR_SHIELD_CREDENTIAL: 'short', SIMULATOR_SHIELD_TLS: 'maybe', SIMULATOR_SHIELD_DEADLINE_MS: '0' });
    expect(Object.keys(problems).sort()).toEqual(['SIMULATOR_SHIELD_CREDENTIAL', 'SIMULATOR_SHIELD_DEADLINE_MS', 'SIMULATOR_SHIELD_TLS']);
    expect(JSON.stringify(problems)).not.toContain('short');
    expect(problemsOf({ ...base, SIMULATOR_SHIELD_CREDENTIAL: secret }).SIMULATOR_SHIELD_ADDRESS).toMatch(/is required/);
    expect(problemsOf({ ...base, SIMULATOR_SHIELD_ADDRESS: '127.0.0.1:50061' }).SIMULATOR_SHIELD_CREDENTIAL).toMatch(/is required/);
    expect(JSON.stringify(problemsOf({ ...base, SIMULATOR_SHIELD_ADDRESS: 'nope', SIMULATOR_SHIELD_CREDENTIAL: secret }))).not.toContain(secret);
  });

  it('plays a built-in counterparty request instead of a scenario file, one or the other', () => {
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'code', SIMULATOR_CREDENTIAL_FILE: join(dir, 'none.json') };
    expect(loadSimulatorConfig({ ...base, SIMULATOR_COUNTERPARTY_REQUEST: 'bank-detail-change' }, 'scenario').counterpartyRequest).toBe('bank-detail-change');
    expect(problemsOf({ ...base, SIMULATOR_COUNTERPARTY_REQUEST: 'wire-fraud' }, 'scenario').SIMULATOR_COUNTERPARTY_REQUEST).toMatch(/invoice-reminder, bank-detail-change/);
    expect(problemsOf({ ...base, SIMULATOR_COUNTERPARTY_REQUEST: 'invoice-reminder', SIMULATOR_SCENARIO_FILE: caFile }, 'scenario').SIMULATOR_COUNTERPARTY_REQUEST).toMatch(/choose one/);
  });

  it('serves the operator port only when SIMULATOR_OPERATOR_ADDRESS names a host:port', () => {
    const base = { RELAY_GATEWAY_URL: 'https://relay.example.com', SIMULATOR_PAIRING_CODE: 'c' };
    expect(loadSimulatorConfig(base, 'enroll').operator).toBeNull();
    expect(loadSimulatorConfig({ ...base, SIMULATOR_OPERATOR_ADDRESS: '0.0.0.0:9466' }, 'enroll').operator).toEqual({ host: '0.0.0.0', port: 9466 });
    expect(loadSimulatorConfig({ ...base, SIMULATOR_OPERATOR_ADDRESS: '[::1]:0' }, 'enroll').operator).toEqual({ host: '::1', port: 0 });
    expect(problemsOf({ ...base, SIMULATOR_OPERATOR_ADDRESS: '9466', SIMULATOR_SEED: 'x' })).toEqual({
      SIMULATOR_OPERATOR_ADDRESS: expect.stringContaining('host:port'),
      SIMULATOR_SEED: expect.any(String),
    });
  });
});
