import { ConfigError } from '@trustmesh/platform-config';

import { loadCardRegistryConfig } from './card-registry.config';

const DIGEST = 'a'.repeat(64);

describe('loadCardRegistryConfig', () => {
  it('runs embedded with defaults and bounds the event store by the card bound', () => {
    const config = loadCardRegistryConfig({ TRUSTMESH_DATA_DIR: '/tmp/x' });
    expect(config).toMatchObject({ embedded: true, http: { host: '127.0.0.1', port: 8490 }, maxCardBytes: 512 * 1024, operatorCredentials: [] });
    expect(config.maxEventDataBytes).toBeGreaterThan((config.maxCardBytes * 4) / 3);
  });

  it('names every bad variable at once, without echoing a credential', () => {
    let error: unknown;
    try {
      loadCardRegistryConfig({ DATABASE_URL: 'postgres://db/registry', REGISTRY_HTTP_PORT: '99999', REGISTRY_MAX_CARD_BYTES: String(4 * 1024 * 1024), REGISTRY_OPERATOR_CREDENTIALS: 'plaintext-secret' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const variable of ['REGISTRY_HTTP_PORT', 'REGISTRY_MAX_CARD_BYTES', 'REGISTRY_OPERATOR_CREDENTIALS']) expect(message).toContain(variable);
    expect(message).not.toContain('plaintext-secret');
  });

  it('requires operator credentials in server mode and reads account:sha256hex pairs', () => {
    expect(() => loadCardRegistryConfig({ DATABASE_URL: 'postgres://db/registry' })).toThrow(/REGISTRY_OPERATOR_CREDENTIALS/);
    const config = loadCardRegistryConfig({ DATABASE_URL: 'postgres://db/registry', REGISTRY_OPERATOR_CREDENTIALS: `ops:${DIGEST}, audit:${DIGEST}` });
    expect(config.operatorCredentials.map((credential) => credential.accountId)).toEqual(['ops', 'audit']);
    expect(config.http.host).toBe('0.0.0.0');
  });

  it('reads delegated service credentials as service:sha256hex pairs, never echoing a plaintext', () => {
    expect(loadCardRegistryConfig({ TRUSTMESH_DATA_DIR: '/tmp/x' }).serviceCredentials).toEqual([]);
    const config = loadCardRegistryConfig({ TRUSTMESH_DATA_DIR: '/tmp/x', REGISTRY_SERVICE_CREDENTIALS: `console:${DIGEST}` });
    expect(config.serviceCredentials.map((credential) => credential.service)).toEqual(['console']);
    expect(() => loadCardRegistryConfig({ TRUSTMESH_DATA_DIR: '/tmp/x', REGISTRY_SERVICE_CREDENTIALS: 'console:plaintext-secret' })).toThrow(/REGISTRY_SERVICE_CREDENTIALS/);
    try {
      loadCardRegistryConfig({ TRUSTMESH_DATA_DIR: '/tmp/x', REGISTRY_SERVICE_CREDENTIALS: 'console:plaintext-secret' });
    } catch (error) {
      expect((error as Error).message).not.toContain('plaintext-secret');
    }
  });

  it('bounds the namespace cache: 512 by default, REGISTRY_NAMESPACE_CACHE_ENTRIES at least 1', () => {
    expect(loadCardRegistryConfig({ TRUSTMESH_DATA_DIR: '/tmp/x' }).namespaceCacheEntries).toBe(512);
    expect(loadCardRegistryConfig({ TRUSTMESH_DATA_DIR: '/tmp/x', REGISTRY_NAMESPACE_CACHE_ENTRIES: '20000' }).namespaceCacheEntries).toBe(20_000);
    expect(() => loadCardRegistryConfig({ TRUSTMESH_DATA_DIR: '/tmp/x', REGISTRY_NAMESPACE_CACHE_ENTRIES: '0' })).toThrow(/REGISTRY_NAMESPACE_CACHE_ENTRIES/);
  });

  it('serves the event feed to follower:sha256hex digests, on the local bus only, never echoing a plaintext', () => {
    expect(loadCardRegistryConfig({}).feedFollowers).toBeNull();
    const followers = loadCardRegistryConfig({ REGISTRY_FEED_CREDENTIALS: `shield:${DIGEST}` }).feedFollowers;
    expect(followers).toEqual([{ name: 'shield', digest: Buffer.from(DIGEST, 'hex') }]);
    const refusal = (env: Record<string, string>) => {
      try {
        loadCardRegistryConfig(env);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };
    const plaintext = refusal({ REGISTRY_FEED_CREDENTIALS: 'plaintext-feed-secret' });
    expect(plaintext.map((problem) => problem.variable)).toEqual(['REGISTRY_FEED_CREDENTIALS']);
    expect(JSON.stringify(plaintext)).not.toContain('plaintext-feed-secret');
    expect(refusal({ TRUSTMESH_BUS: 'kafka', KAFKA_BROKERS: 'kafka:9092', REGISTRY_FEED_CREDENTIALS: `shield:${DIGEST}` })).toEqual([
      expect.objectContaining({ variable: 'REGISTRY_FEED_CREDENTIALS', code: 'FEED_NEEDS_LOCAL_BUS' }),
    ]);
  });
});
