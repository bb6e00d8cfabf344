import { isWithinNamespace, namespaceOfIdentifier } from './identifier-namespace.resolver';

describe('namespaceOfIdentifier', () => {
  it.each([
    ['did:web:acme.com', 'acme.com', 'did:web'],
    ['did:web:Acme.COM', 'acme.com', 'did:web'],
    ['did:web:acme.com:users:alice', 'acme.com', 'did:web'],
    ['did:web:acme.com%3A8443', 'acme.com', 'did:web'],
    ['urn:air:acme.com:agent:finance', 'acme.com', 'urn:air'],
    ['urn:ai:acme.com:agent:finance', 'acme.com', 'urn:air'],
    ['https://agents.acme.com/.well-known/agent-card.json', 'agents.acme.com', 'https'],
    ['https://acme.com:8443/x', 'acme.com', 'https'],
    ['HTTPS://ACME.com', 'acme.com', 'https'],
    ['spiffe://acme.com/fin', 'acme.com', 'spiffe'],
    ['com.acme/server', 'acme.com', 'mcp'],
    ['com.acme.tools/weather', 'tools.acme.com', 'mcp'],
    ['io.github.octocat/weather-mcp', 'octocat.github.io', 'mcp'],
    ['urn:air:münchen.de:agent:x', 'xn--mnchen-3ya.de', 'urn:air'],
  ])('%s belongs to %s', (identifier, namespace, kind) => {
    expect(namespaceOfIdentifier(identifier)).toEqual({ ok: true, namespace, kind });
  });

  it.each([
    ['did:key:z6Mk', 'NAMESPACE_IDENTIFIER_UNSUPPORTED'],
    ['urn:uuid:123e4567-e89b-12d3-a456-426614174000', 'NAMESPACE_IDENTIFIER_UNSUPPORTED'],
    ['mailto:a@acme.com', 'NAMESPACE_IDENTIFIER_UNSUPPORTED'],
    ['http://acme.com', 'NAMESPACE_IDENTIFIER_UNSUPPORTED'],
    ['just words', 'NAMESPACE_IDENTIFIER_UNSUPPORTED'],
    ['https://user@acme.com/', 'NAMESPACE_IDENTIFIER_MALFORMED'],
    ['https://[::1]/', 'NAMESPACE_IDENTIFIER_MALFORMED'],
    ['did:web:acme%ZZ.com', 'NAMESPACE_IDENTIFIER_MALFORMED'],
    ['https://10.0.0.1/', 'NAMESPACE_NUMERIC_TLD'],
    ['server/only', 'NAMESPACE_SINGLE_LABEL'],
    ['did:web:localhost', 'NAMESPACE_SINGLE_LABEL'],
  ])('%s gives %s', (identifier, code) => {
    const result = namespaceOfIdentifier(identifier, '/entries/2/identifier');
    expect(result).toMatchObject({ ok: false, issue: { code, pointer: '/entries/2/identifier' } });
  });
});

describe('isWithinNamespace', () => {
  it('accepts the domain itself in any spelling', () => {
    expect(isWithinNamespace('ACME.com', 'acme.com')).toBe(true);
    expect(isWithinNamespace('münchen.de', 'xn--mnchen-3ya.de')).toBe(true);
  });

  it('accepts subdomains only when the proof grants them', () => {
    expect(isWithinNamespace('agents.acme.com', 'acme.com')).toBe(false);
    expect(isWithinNamespace('agents.acme.com', 'acme.com', { includeSubdomains: true })).toBe(true);
  });

  it('never treats a suffix match without a dot as inside', () => {
    expect(isWithinNamespace('evilacme.com', 'acme.com', { includeSubdomains: true })).toBe(false);
    expect(isWithinNamespace('acme.com', 'agents.acme.com', { includeSubdomains: true })).toBe(false);
    expect(isWithinNamespace('acme.com.', 'acme.com')).toBe(false);
  });
});
