import { ConfigError } from '@trustmesh/platform-config';

import { loadRelayGatewayConfig } from './relay-gateway.config';

const problemsOf = (env: Record<string, string>, readFile: () => string = () => 'not-a-digest\n') => {
  try {
    loadRelayGatewayConfig(env, { cwd: '/srv', readFile });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.variable);
    throw error;
  }
  return [];
};

const digest = 'ab'.repeat(32);
/** A complete server deployment; tests take one variable away or change it. */
const server: Record<string, string> = {
  DATABASE_URL: 'postgres://relay@db/relay',
  RELAY_PUBLIC_BASE_URL: 'https://relay.example.com/',
  RELAY_SERVICE_CREDENTIAL_SHA256: digest,
  RELAY_TLS_CERT_FILE: 'tls/cert.pem',
  RELAY_TLS_KEY_FILE: '/etc/tls/key.pem',
};

describe('relay gateway configuration', () => {
  it('defaults to embedded development: self-signed TLS, loopback ports, no configured credential', () => {
    const config = loadRelayGatewayConfig({}, { cwd: '/srv' });
    expect(config.embedded).toBe(true);
    expect(config.tls).toEqual({ mode: 'self-signed', dir: '/srv/.data/relay-gateway/tls', hostnames: ['localhost', '127.0.0.1', '::1'] });
    expect(config.http).toEqual({ host: '127.0.0.1', port: 8443 });
    expect(config.grpc).toEqual({ host: '127.0.0.1', port: 50051, tls: false });
    expect(config.operator).toEqual({ host: '127.0.0.1', port: 0 });
    expect(config.serviceCredentialDigests).toEqual([]);
    expect(config.publicBaseUrl).toBeNull();
    expect(config.trustedProxies.isEmpty).toBe(true);
  });

  it('reads a server deployment: TLS on both listeners, operator port on loopback', () => {
    const config = loadRelayGatewayConfig(server, { cwd: '/srv' });
    expect(config.publicBaseUrl).toBe('https://relay.example.com');
    expect(config.tls).toEqual({ mode: 'files', certFile: '/srv/tls/cert.pem', keyFile: '/etc/tls/key.pem' });
    expect(config.serviceCredentialDigests.map((entry) => entry.toString('hex'))).toEqual([digest]);
    expect(config.http.host).toBe('0.0.0.0');
    expect(config.grpc).toEqual({ host: '0.0.0.0', port: 50051, tls: true });
    expect(config.operator).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadRelayGatewayConfig({ ...server, RELAY_OPERATOR_PORT: 'off' }, { cwd: '/srv' }).operator).toBeNull();
  });

  it('requires TLS in server mode, on HTTP and gRPC, unless a proxy terminates it', () => {
    const { RELAY_TLS_CERT_FILE: _cert, RELAY_TLS_KEY_FILE: _key, ...plain } = server;
    expect(problemsOf(plain)).toEqual(['RELAY_TLS']);
    expect(problemsOf({ ...plain, RELAY_TLS: 'off' })).toEqual(['RELAY_TLS']);
    expect(problemsOf({ ...server, RELAY_GRPC_TLS: 'false' })).toEqual(['RELAY_GRPC_TLS']);
    expect(problemsOf({ ...plain, RELAY_TLS: 'terminated-by-proxy', RELAY_GRPC_TLS: 'true' })).toEqual(['RELAY_GRPC_TLS']);
    // The explicit opt-out: plain listeners, on loopback unless named.
    const proxied = loadRelayGatewayConfig({ ...plain, RELAY_TLS: 'terminated-by-proxy' }, { cwd: '/srv' });
    expect(proxied.tls).toEqual({ mode: 'terminated-by-proxy' });
    expect(proxied.http.host).toBe('127.0.0.1');
    expect(proxied.grpc).toEqual({ host: '127.0.0.1', port: 50051, tls: false });
    const named = loadRelayGatewayConfig({ ...plain, RELAY_TLS: 'terminated-by-proxy', RELAY_HTTP_HOST: '10.0.0.5', RELAY_GRPC_HOST: '10.0.0.5' }, { cwd: '/srv' });
    expect([named.http.host, named.grpc.host]).toEqual(['10.0.0.5', '10.0.0.5']);
    // Embedded development keeps its plaintext option.
    expect(loadRelayGatewayConfig({ RELAY_TLS: 'off' }, { cwd: '/srv' }).tls).toEqual({ mode: 'off' });
  });

  it('refuses an empty service credential digest list, naming the variable, in every mode', () => {
    expect(problemsOf({ ...server, RELAY_SERVICE_CREDENTIAL_SHA256: ',' })).toEqual(['RELAY_SERVICE_CREDENTIAL_SHA256']);
    expect(problemsOf({ ...server, RELAY_SERVICE_CREDENTIAL_SHA256: ' , \n' })).toEqual(['RELAY_SERVICE_CREDENTIAL_SHA256']);
    const { RELAY_SERVICE_CREDENTIAL_SHA256: _digest, ...withoutDigest } = server;
    expect(problemsOf({ ...withoutDigest, RELAY_SERVICE_CREDENTIAL_SHA256_FILE: 'digests.txt' }, () => '')).toEqual(['RELAY_SERVICE_CREDENTIAL_SHA256_FILE']);
    expect(problemsOf({ ...withoutDigest, RELAY_SERVICE_CREDENTIAL_SHA256_FILE: 'digests.txt' }, () => '# rotated out\n\n')).toEqual([
      'RELAY_SERVICE_CREDENTIAL_SHA256_FILE',
    ]);
    expect(problemsOf({ RELAY_SERVICE_CREDENTIAL_SHA256: ',' })).toEqual(['RELAY_SERVICE_CREDENTIAL_SHA256']);
    expect(problemsOf({ ...withoutDigest, RELAY_SERVICE_CREDENTIAL_SHA256_FILE: 'digests.txt' }, () => `# current\n${digest}\n`)).toEqual([]);
  });

  it('reads trusted proxies as addresses and CIDR blocks, and refuses the old left-most switch', () => {
    const config = loadRelayGatewayConfig({ RELAY_TRUSTED_PROXIES: '10.0.0.0/8, ::1, 192.0.2.7' }, { cwd: '/srv' });
    expect(config.trustedProxies.trusts('10.1.2.3')).toBe(true);
    expect(config.trustedProxies.trusts('::ffff:10.1.2.3')).toBe(true);
    expect(config.trustedProxies.trusts('::1')).toBe(true);
    expect(config.trustedProxies.trusts('192.0.2.8')).toBe(false);
    expect(problemsOf({ RELAY_TRUSTED_PROXIES: '10.0.0.0/33,proxy.local' })).toEqual(['RELAY_TRUSTED_PROXIES']);
    expect(problemsOf({ RELAY_TRUST_PROXY: 'true' })).toEqual(['RELAY_TRUST_PROXY']);
  });

  it('names every bad variable, never echoing a credential-like value', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://db/x' })).toEqual(['RELAY_PUBLIC_BASE_URL', 'RELAY_TLS', 'RELAY_SERVICE_CREDENTIAL_SHA256']);
    expect(problemsOf({ RELAY_HTTP_PORT: '70000', RELAY_TLS: 'maybe', RELAY_PUBLIC_BASE_URL: 'http://x', LOG_LEVEL: 'loud' })).toEqual([
      'RELAY_PUBLIC_BASE_URL',
      'RELAY_TLS',
      'RELAY_HTTP_PORT',
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
