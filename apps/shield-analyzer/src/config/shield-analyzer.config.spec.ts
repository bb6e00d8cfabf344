import { ConfigError } from '@trustmesh/platform-config';

import { loadShieldAnalyzerConfig } from './shield-analyzer.config';

const DIGEST = 'a'.repeat(64);

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadShieldAnalyzerConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.variable).sort();
    throw error;
  }
  return [];
}

describe('loadShieldAnalyzerConfig', () => {
  it('runs embedded with development defaults and the model path on (falling back without a key)', () => {
    const config = loadShieldAnalyzerConfig({});
    expect(config.embedded).toBe(true);
    expect(config.operatorCredentials).toEqual([]);
    expect(config.http.host).toBe('127.0.0.1');
    expect(config.operator).toEqual({ host: '127.0.0.1', port: 0 });
    expect(config.model).toMatchObject({ provider: 'anthropic', deadlineMs: 25_000 });
    expect(config.model?.apiKey).toBeUndefined();
  });

  it('reads account:sha256 operator credentials and turns the model path off with none', () => {
    const config = loadShieldAnalyzerConfig({ SHIELD_OPERATOR_CREDENTIALS: `acme:${DIGEST}, globex:${'B'.repeat(64)}`, SHIELD_MODEL_PROVIDER: 'none' });
    expect(config.operatorCredentials.map((credential) => credential.accountId)).toEqual(['acme', 'globex']);
    expect(config.operatorCredentials[0]?.digest).toHaveLength(32);
    expect(config.model).toBeNull();
  });

  it('names every bad variable at once and never echoes a credential', () => {
    let message = '';
    try {
      loadShieldAnalyzerConfig({ SHIELD_HTTP_PORT: '99999', SHIELD_OPERATOR_CREDENTIALS: 'plaintext-secret-123', SHIELD_MODEL_PROVIDER: 'gemini', LOG_LEVEL: 'loud' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(problemsOf({ SHIELD_HTTP_PORT: '99999', SHIELD_OPERATOR_CREDENTIALS: 'plaintext-secret-123', SHIELD_MODEL_PROVIDER: 'gemini', LOG_LEVEL: 'loud' })).toEqual([
      'LOG_LEVEL',
      'SHIELD_HTTP_PORT',
      'SHIELD_MODEL_PROVIDER',
      'SHIELD_OPERATOR_CREDENTIALS',
    ]);
    expect(message).not.toContain('plaintext-secret-123');
  });

  it('reads delegated service credentials as service:sha256 pairs, refusing a plaintext or a service name with a dash', () => {
    expect(loadShieldAnalyzerConfig({}).serviceCredentials).toEqual([]);
    const config = loadShieldAnalyzerConfig({ SHIELD_SERVICE_CREDENTIALS: `console:${DIGEST}` });
    expect(config.serviceCredentials.map((credential) => [credential.service, credential.digest.length])).toEqual([['console', 32]]);
    expect(problemsOf({ SHIELD_SERVICE_CREDENTIALS: 'console:plaintext-secret-123' })).toEqual(['SHIELD_SERVICE_CREDENTIALS']);
    expect(problemsOf({ SHIELD_SERVICE_CREDENTIALS: `my-console:${DIGEST}` })).toEqual(['SHIELD_SERVICE_CREDENTIALS']);
  });

  it('requires operator credentials in server mode and a model name for OpenAI-compatible endpoints', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://db.example/shield', SHIELD_MODEL_PROVIDER: 'openai' })).toEqual(['SHIELD_MODEL', 'SHIELD_OPERATOR_CREDENTIALS']);
    expect(problemsOf({ DATABASE_URL: 'postgres://db.example/shield', SHIELD_OPERATOR_CREDENTIALS: `acme:${DIGEST}` })).toEqual([]);
  });

  it('follows the card registry\'s event feed on the local bus only, with the gRPC client rule', () => {
    const credential = 'feed-credential-0123456789abcdef';
    expect(loadShieldAnalyzerConfig({}).registryFeed).toBeNull();
    const feed = loadShieldAnalyzerConfig({ SHIELD_REGISTRY_FEED_ADDRESS: '127.0.0.1:50071', SHIELD_REGISTRY_FEED_CREDENTIAL: credential }).registryFeed;
    expect(feed).toMatchObject({ address: '127.0.0.1:50071', loopback: true, tls: null });
    expect(feed?.credential.reveal()).toBe(credential);
    expect(JSON.stringify(feed)).not.toContain(credential);
    expect(problemsOf({ SHIELD_REGISTRY_FEED_ADDRESS: '127.0.0.1:50071' })).toEqual(['SHIELD_REGISTRY_FEED_CREDENTIAL']);
    expect(problemsOf({ TRUSTMESH_BUS: 'kafka', KAFKA_BROKERS: 'kafka:9092', SHIELD_REGISTRY_FEED_ADDRESS: '127.0.0.1:50071', SHIELD_REGISTRY_FEED_CREDENTIAL: credential })).toEqual([
      'SHIELD_REGISTRY_FEED_ADDRESS',
    ]);
  });
});
