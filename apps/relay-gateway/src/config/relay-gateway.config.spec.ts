import { ConfigError } from '@trustmesh/platform-config';

import { loadRelayGatewayConfig } from './relay-gateway.config';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadRelayGatewayConfig(env, { cwd: '/srv', readFile: () => 'not-a-digest\n' });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.variable);
    throw error;
  }
  return [];
};

describe('relay gateway configuration', () => {
  it('defaults to embedded development: self-signed TLS, loopback ports, no configured credential', () => {
    const config = loadRelayGatewayConfig({}, { cwd: '/srv' });
    expect(config.embedded).toBe(true);
    expect(config.tls).toEqual({ mode: 'self-signed', dir: '/srv/.data/relay-gateway/tls', hostnames: ['localhost', '127.0.0.1', '::1'] });
    expect(config.http).toEqual({ host: '127.0.0.1', port: 8443 });
    expect(config.grpc).toEqual({ host: '127.0.0.1', port: 50051, tls: false });
    expect(config.serviceCredentialDigests).toEqual([]);
    expect(config.publicBaseUrl).toBeNull();
  });

  it('reads a server deployment', () => {
    const digest = 'ab'.repeat(32);
    const config = loadRelayGatewayConfig(
      {
        DATABASE_URL: 'postgres://relay@db/relay',
        RELAY_PUBLIC_BASE_URL: 'https://relay.example.com/',
        RELAY_SERVICE_CREDENTIAL_SHA256: digest,
        RELAY_TLS_CERT_FILE: 'tls/cert.pem',
        RELAY_TLS_KEY_FILE: '/etc/tls/key.pem',
      },
      { cwd: '/srv' },
    );
    expect(config.publicBaseUrl).toBe('https://relay.example.com');
    expect(config.tls).toEqual({ mode: 'files', certFile: '/srv/tls/cert.pem', keyFile: '/etc/tls/key.pem' });
    expect(config.serviceCredentialDigests.map((entry) => entry.toString('hex'))).toEqual([digest]);
    expect(config.http.host).toBe('0.0.0.0');
  });

  it('names every bad variable, never echoing a credential-like value', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://db/x' })).toEqual(['RELAY_PUBLIC_BASE_URL', 'RELAY_SERVICE_CREDENTIAL_SHA256']);
    expect(problemsOf({ RELAY_HTTP_PORT: '70000', RELAY_TLS: 'maybe', RELAY_PUBLIC_BASE_URL: 'http://x', LOG_LEVEL: 'loud' })).toEqual([
      'RELAY_HTTP_PORT',
      'RELAY_PUBLIC_BASE_URL',
      'RELAY_TLS',
      'LOG_LEVEL',
    ]);
    expect(problemsOf({ RELAY_SERVICE_CREDENTIAL_SHA256_FILE: 'digests.txt' })).toEqual(['RELAY_SERVICE_CREDENTIAL_SHA256_FILE']);
    try {
      loadRelayGatewayConfig({ RELAY_SERVICE_CREDENTIAL_SHA256: 'tmsc_plaintext-credential' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as Error).message).toContain('RELAY_SERVICE_CREDENTIAL_SHA256');
      expect((error as Error).message).not.toContain('plaintext-credential');
    }
  });
});
