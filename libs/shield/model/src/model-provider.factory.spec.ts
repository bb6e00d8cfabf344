import { createModelProvider, DEFAULT_ANTHROPIC_MODEL } from './model-provider.factory';

describe('createModelProvider', () => {
  it('builds an Anthropic provider with the default model, reporting the missing key', () => {
    const provider = createModelProvider({ provider: 'anthropic' });
    expect(provider.modelId).toBe(`anthropic/${DEFAULT_ANTHROPIC_MODEL}`);
    expect(provider.missingCredentialCode).toBe('anthropic_api_key_missing');
    expect(createModelProvider({ provider: 'anthropic', apiKey: 'k' }).missingCredentialCode).toBeUndefined();
  });

  it('builds an OpenAI-compatible provider, which needs a model', () => {
    const provider = createModelProvider({ provider: 'openai', model: 'gpt-4.1-mini', apiKey: 'k', baseUrl: 'http://localhost:11434/v1/' });
    expect(provider.modelId).toBe('openai/gpt-4.1-mini');
    expect(createModelProvider({ provider: 'openai', model: 'm' }).missingCredentialCode).toBe('openai_api_key_missing');
    expect(() => createModelProvider({ provider: 'openai' })).toThrow('needs a model name');
  });

  it.each([
    ['not a URL', 'api.anthropic.com', 'not a URL'],
    ['another scheme', 'ftp://example.com', 'http or https'],
    ['a query', 'https://example.com/v1?key=abc', 'query or fragment'],
    ['credentials', 'https://user:secret@example.com', 'must not carry credentials'],
  ])('refuses a base URL with %s at startup', (_label, baseUrl, message) => {
    expect(() => createModelProvider({ provider: 'anthropic', baseUrl })).toThrow(message);
  });

  it('refuses an unknown provider and a bad provider label', () => {
    expect(() => createModelProvider({ provider: 'gemini' as never })).toThrow('Unknown model provider');
    expect(() => createModelProvider({ provider: 'openai', model: 'm', providerLabel: 'Open AI/' })).toThrow('provider label');
  });
});
