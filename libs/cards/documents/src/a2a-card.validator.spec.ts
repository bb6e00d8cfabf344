import { A2A_V03, A2A_V10, check, edit, errorsOf, warningsOf } from './documents.fixtures';
import { a2aCardVersion } from './index';

// Specs edit fixtures freely; their shape is what the validator under test checks.
type Json = Record<string, any>;

describe('A2A AgentCard validation (CARDS.md §4.1)', () => {
  it('accepts a v0.3.0 card and a v1.0 card, telling them apart by shape', () => {
    expect(check(A2A_V03)).toMatchObject({ kind: 'a2a', valid: true, warnings: [] });
    expect(check(A2A_V10)).toMatchObject({ kind: 'a2a', valid: true, warnings: [] });
    expect([a2aCardVersion(A2A_V03), a2aCardVersion(A2A_V10)]).toEqual(['0.3', '1.0']);
  });

  it('requires the v0.3.0 members', () => {
    const card = edit(A2A_V03 as Json, (c) => {
      for (const key of ['url', 'protocolVersion', 'defaultInputModes', 'version']) delete c[key];
    });
    expect(check(card).kind).toBe('a2a');
    expect(errorsOf(card)).toEqual([
      'FIELD_MISSING@/version',
      'FIELD_MISSING@/defaultInputModes',
      'FIELD_MISSING@/url',
      'FIELD_MISSING@/protocolVersion',
    ]);
  });

  it('checks skills, provider, transports and v0.3 security schemes', () => {
    const card = edit(A2A_V03 as Json, (c) => {
      c['skills'][0] = { id: 'forecast', name: 'Forecast', description: 'x', tags: 'weather' };
      c['provider'] = { organization: 'Orbit' };
      c['preferredTransport'] = 'SOAP';
      c['securitySchemes']['bearer'] = { scheme: 'bearer' };
      c['additionalInterfaces'] = [{ url: 'https://orbit.example/grpc' }];
    });
    expect(errorsOf(card)).toEqual([
      'FIELD_MISSING@/provider/url',
      'FIELD_TYPE@/skills/0/tags',
      'VALUE_NOT_ALLOWED@/preferredTransport',
      'FIELD_MISSING@/additionalInterfaces/0/transport',
      'FIELD_MISSING@/securitySchemes/bearer/type',
    ]);
  });

  it('checks what each v0.3 security scheme type requires, OAuth 2 flows included', () => {
    const card = edit(A2A_V03 as Json, (c) => {
      c['securitySchemes'] = {
        key: { type: 'apiKey', in: 'body' },
        oidc: { type: 'openIdConnect' },
        oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'token' }, authorizationCode: { authorizationUrl: 'https://orbit.example/auth', tokenUrl: 'https://orbit.example/token', scopes: {} } } },
        tls: { type: 'mutualTLS' },
      };
    });
    expect(errorsOf(card)).toEqual([
      'VALUE_NOT_ALLOWED@/securitySchemes/key/in',
      'FIELD_MISSING@/securitySchemes/key/name',
      'FIELD_MISSING@/securitySchemes/oidc/openIdConnectUrl',
      'URI_NOT_ABSOLUTE@/securitySchemes/oauth/flows/clientCredentials/tokenUrl',
      'FIELD_MISSING@/securitySchemes/oauth/flows/clientCredentials/scopes',
    ]);
  });

  it('requires a non-empty supportedInterfaces with url and protocolBinding in v1.0', () => {
    expect(errorsOf({ ...A2A_V10, supportedInterfaces: [] })).toEqual(['FIELD_EMPTY@/supportedInterfaces']);
    expect(errorsOf({ ...A2A_V10, supportedInterfaces: [{ url: 'a2a' }] })).toEqual([
      'URI_NOT_ABSOLUTE@/supportedInterfaces/0/url',
      'FIELD_MISSING@/supportedInterfaces/0/protocolBinding',
    ]);
  });

  it('requires v1.0 security schemes to be wrapped as one oneof member', () => {
    expect(errorsOf(edit(A2A_V10 as Json, (c) => (c['securitySchemes']['bearer'] = { type: 'http', scheme: 'bearer' })))).toEqual([
      'VALUE_NOT_ALLOWED@/securitySchemes/bearer',
    ]);
  });

  it('warns about v0.3-only members in a v1.0 card, which v1.0 signers leave unsigned', () => {
    const card = edit(A2A_V10 as Json, (c) => {
      c['capabilities']['stateTransitionHistory'] = false;
      c['protocolVersion'] = '0.3.0';
    });
    expect(check(card).valid).toBe(true);
    expect(warningsOf(card)).toEqual(['FIELD_UNKNOWN@/capabilities/stateTransitionHistory', 'FIELD_UNKNOWN@/protocolVersion']);
  });

  it('checks signatures for shape only', () => {
    expect(errorsOf({ ...A2A_V10, signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9' }] })).toEqual(['FIELD_MISSING@/signatures/0/signature']);
  });
});
