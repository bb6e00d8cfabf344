import { didWebDocument, didWebResolver, generateSigningKey, signA2aCard, type TestSigningKey } from './testing';
import { a2aSigningPayload, mapResolver, verifyA2aCardSignatures } from './index';

const NOW = new Date('2026-10-01T12:00:00Z');

function agentCard(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Route Planner',
    description: 'Plans delivery routes.',
    url: 'https://agents.acme.example/a2a',
    version: '1.4.0',
    protocolVersion: '0.3.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 'plan', name: 'Plan a route', description: 'Orders stops.', tags: ['routing'], examples: [] }],
    ...overrides,
  };
}

describe('A2A AgentCard signatures', () => {
  let key: TestSigningKey;
  let resolver: ReturnType<typeof didWebResolver>;
  const keySource = { kind: 'did-web', signer: 'did:web:acme.example' } as const;

  beforeAll(async () => {
    key = await generateSigningKey({ signer: 'did:web:acme.example', fragment: 'a2a-1' });
    resolver = didWebResolver([didWebDocument('did:web:acme.example', [key])]);
  });

  it('applies protobuf presence: required kept even empty, explicit optionals kept, other defaults dropped, keys sorted', () => {
    const fragment = { skills: [], capabilities: { pushNotifications: false, extensions: [], streaming: false }, description: '', name: 'Sample' };
    expect(a2aSigningPayload(fragment)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Sample","skills":[]}');
    const optional = agentCard({ iconUrl: '', supportsAuthenticatedExtendedCard: false, provider: { organization: 'Acme', url: 'https://acme.example' }, securitySchemes: {}, signatures: [{ x: 1 }] });
    const payload = JSON.parse(a2aSigningPayload(optional)!) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(['capabilities', 'defaultInputModes', 'defaultOutputModes', 'description', 'name', 'protocolVersion', 'provider', 'skills', 'url', 'version']);
    expect(payload['skills']).toEqual([{ description: 'Orders stops.', id: 'plan', name: 'Plan a route', tags: ['routing'] }]);
    // Members outside the v0.3 model stay, so they are covered by the signature.
    expect(a2aSigningPayload(agentCard({ 'x-vendor': '' }))).toContain('"x-vendor":""');
  });

  it('verifies each signature and records each result, with bare kids read under the fixed signer', async () => {
    const other = await generateSigningKey({ signer: 'did:web:acme.example', fragment: 'retired' });
    let signed = await signA2aCard(agentCard(), key, { header: { kid: 'a2a-1', jku: 'https://evil.example/jwks.json' } });
    signed = await signA2aCard(signed, other);
    const result = await verifyA2aCardSignatures(signed, { resolver, keySource, now: NOW });
    expect(result.anyVerified).toBe(true);
    expect(result.results).toEqual([
      { verified: true, signer: 'did:web:acme.example', kid: 'did:web:acme.example#a2a-1', alg: 'ES256', verifiedAt: '2026-10-01T12:00:00.000Z' },
      expect.objectContaining({ verified: false, code: 'KEY_NOT_FOUND', pointer: '/signatures/1' }),
    ]);
  });

  it('never fetches keys from jku', async () => {
    const requested: string[] = [];
    const signed = await signA2aCard(agentCard(), key, { header: { jku: 'https://evil.example/jwks.json' } });
    const spy = async (url: string) => {
      requested.push(url);
      return resolver(url);
    };
    await verifyA2aCardSignatures(signed, { resolver: spy, keySource, now: NOW });
    expect(requested).toEqual(['https://acme.example/.well-known/did.json']);
  });

  it('refuses a card changed after signing, including a field the signer kept though it was default', async () => {
    const signed = await signA2aCard(agentCard(), key);
    const renamed = await verifyA2aCardSignatures({ ...signed, name: 'Route Planner 2' }, { resolver, keySource, now: NOW });
    expect(renamed.results[0]).toMatchObject({ code: 'SIGNATURE_INVALID' });
    const capabilities = { ...(signed['capabilities'] as object), pushNotifications: true };
    expect((await verifyA2aCardSignatures({ ...signed, capabilities }, { resolver, keySource, now: NOW })).results[0]).toMatchObject({ code: 'SIGNATURE_INVALID' });
    // Dropping a default-valued non-required field does not change the payload.
    const { examples: _examples, ...skill } = (signed['skills'] as Array<Record<string, unknown>>)[0]!;
    expect((await verifyA2aCardSignatures({ ...signed, skills: [skill] }, { resolver, keySource, now: NOW })).anyVerified).toBe(true);
  });

  it('refuses RS256, alg none, jwk/x5c headers, kids of other signers and malformed entries', async () => {
    const forbidden = await signA2aCard(agentCard(), key, { header: { x5c: ['MIIB'] } });
    const unprotectedJwk = await signA2aCard(agentCard(), key, { unprotected: { jwk: key.publicJwk } });
    const foreignKid = await signA2aCard(agentCard(), key, { header: { kid: 'did:web:evil.example#a2a-1' } });
    const rs256 = { ...agentCard(), signatures: [{ protected: Buffer.from('{"alg":"RS256","kid":"a2a-1"}').toString('base64url'), signature: 'AAAA' }] };
    const results = await Promise.all([forbidden, unprotectedJwk, foreignKid, rs256].map((card) => verifyA2aCardSignatures(card, { resolver, keySource, now: NOW })));
    expect(results.map((result) => result.results[0] && !result.results[0].verified && result.results[0].code)).toEqual(['JWS_HEADER_FORBIDDEN', 'JWS_HEADER_FORBIDDEN', 'JWS_KID_INVALID', 'JWS_ALG_UNSUPPORTED']);
    const malformed = await verifyA2aCardSignatures({ ...agentCard(), signatures: [42, { protected: 'x' }] }, { resolver, keySource, now: NOW });
    expect(malformed.results.map((result) => !result.verified && result.code)).toEqual(['JWS_MALFORMED', 'JWS_MALFORMED']);
    expect((await verifyA2aCardSignatures(agentCard(), { resolver, keySource, now: NOW })).results[0]).toMatchObject({ code: 'SIGNATURE_ABSENT' });
    const requested: string[] = [];
    const many = await signA2aCard(agentCard(), key);
    const flood = { ...many, signatures: Array.from({ length: 17 }, () => (many['signatures'] as unknown[])[0]) };
    const refused = await verifyA2aCardSignatures(flood, { resolver: async (url) => void requested.push(url), keySource, now: NOW });
    expect(refused).toEqual({ anyVerified: false, results: [expect.objectContaining({ code: 'TOO_MANY_SIGNATURES' })] });
    expect(requested).toEqual([]);
  });

  it('selects keys from a JWK Set the caller fixed', async () => {
    const jwksUrl = 'https://acme.example/.well-known/jwks.json';
    const signed = await signA2aCard(agentCard(), key, { header: { kid: 'key-7' } });
    const result = await verifyA2aCardSignatures(signed, { resolver: mapResolver({ [jwksUrl]: { keys: [{ ...key.publicJwk, kid: 'key-7', use: 'sig' }] } }), keySource: { kind: 'jwks', url: jwksUrl, signer: 'https://acme.example' }, now: NOW });
    expect(result.results).toEqual([expect.objectContaining({ verified: true, kid: 'key-7', signer: 'https://acme.example' })]);
  });
});
