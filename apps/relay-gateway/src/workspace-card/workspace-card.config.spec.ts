/**
 * RELAY_REGISTRY_* as the gateway reads them: all optional together, the credential from a file (or the
 * environment) held as a secret that never prints, and every problem named without echoing the secret.
 */
import { inspect } from 'node:util';

import { ConfigError } from '@trustmesh/platform-config';

import { loadRelayGatewayConfig } from '../config/relay-gateway.config';

const CREDENTIAL = 'tmrp_0123456789abcdef.secret-part';
const complete = {
  RELAY_REGISTRY_GRPC_ADDRESS: 'registry.internal:50061',
  RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE: 'secrets/registry.credential',
  RELAY_CARD_NAMESPACE: 'Relay.Example.com',
};
const files = (path: string) => {
  if (path === '/srv/secrets/registry.credential') return `${CREDENTIAL}\n`;
  throw new Error('ENOENT');
};

function problems(env: Record<string, string>): ConfigError['problems'] {
  try {
    loadRelayGatewayConfig(env, { cwd: '/srv', readFile: files });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('workspace card configuration', () => {
  it('is off when no RELAY_REGISTRY_* variable is set', () => {
    expect(loadRelayGatewayConfig({}, { cwd: '/srv' }).workspaceCards).toBeNull();
  });

  it('reads the registry, the credential from its file and the namespace; the credential never prints', () => {
    const config = loadRelayGatewayConfig(complete, { cwd: '/srv', readFile: files }).workspaceCards!;
    // Off loopback and with no CA file: TLS trusting the system's CAs (no longer plaintext to any host).
    expect(config).toMatchObject({ registry: { address: 'registry.internal:50061', tls: { ca: null } }, namespace: 'relay.example.com', publisherName: 'Trustmesh Relay', retryMaxMs: 60_000 });
    expect(config.registry.credential.reveal()).toBe(CREDENTIAL);
    expect(JSON.stringify(config)).not.toContain('secret-part');
    expect(inspect(config, { depth: 5 })).not.toContain('secret-part');
    expect(`${config.registry.credential}`).toBe('[redacted]');
  });

  it('reads RELAY_REGISTRY_TLS as every gRPC client of the platform does: plaintext is the operator\'s explicit choice off loopback', () => {
    const read = (env: Record<string, string>) => loadRelayGatewayConfig({ ...complete, ...env }, { cwd: '/srv', readFile: files }).workspaceCards!.registry;
    expect(read({ RELAY_REGISTRY_TLS: 'false' }).tls).toBeNull();
    expect(read({ RELAY_REGISTRY_GRPC_ADDRESS: '127.0.0.1:50081' }).tls).toBeNull();
    expect(read({ RELAY_REGISTRY_GRPC_ADDRESS: '127.0.0.1:50081', RELAY_REGISTRY_TLS: 'true' }).tls).toEqual({ ca: null });
    expect(problems({ ...complete, RELAY_REGISTRY_TLS: 'sometimes' }).map((problem) => problem.code)).toEqual(['GRPC_TARGET_TLS_INVALID']);
    expect(problems({ ...complete, RELAY_REGISTRY_TLS_CA_FILE: 'ca.pem' }).map((problem) => `${problem.variable} ${problem.code}`)).toEqual(['RELAY_REGISTRY_TLS_CA_FILE GRPC_TARGET_CA_UNREADABLE']);
  });

  it('names every variable at fault, and never echoes a credential', () => {
    const found = problems({ RELAY_REGISTRY_GRPC_ADDRESS: 'not an address', RELAY_REGISTRY_PUBLISHER_CREDENTIAL: 'secret-without-prefix', RELAY_CARD_NAMESPACE: 'localhost', RELAY_REGISTRY_RETRY_MAX_SECONDS: '0' });
    expect(found.map((problem) => problem.variable).sort()).toEqual(['RELAY_CARD_NAMESPACE', 'RELAY_REGISTRY_GRPC_ADDRESS', 'RELAY_REGISTRY_PUBLISHER_CREDENTIAL', 'RELAY_REGISTRY_RETRY_MAX_SECONDS']);
    expect(JSON.stringify(found)).not.toContain('secret-without-prefix');
    expect(problems({ RELAY_CARD_NAMESPACE: 'relay.example.com' }).map((problem) => problem.variable).sort()).toEqual(['RELAY_REGISTRY_GRPC_ADDRESS', 'RELAY_REGISTRY_PUBLISHER_CREDENTIAL']);
    expect(problems({ ...complete, RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE: 'missing' }).map((problem) => problem.variable)).toEqual(['RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE']);
    expect(problems({ ...complete, RELAY_REGISTRY_PUBLISHER_CREDENTIAL: CREDENTIAL }).map((problem) => problem.variable)).toEqual(['RELAY_REGISTRY_PUBLISHER_CREDENTIAL']);
  });
});
