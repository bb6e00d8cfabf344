import { AI_CARD, check, edit, errorsOf, warningsOf } from './documents.fixtures';

// Specs edit fixtures freely; their shape is what the validator under test checks.
type Json = Record<string, any>;

describe('AI Card v1 validation (CARDS.md §1)', () => {
  it('accepts a complete seed card, detected as an ai-card', () => {
    const result = check(AI_CARD);
    expect(result).toMatchObject({ kind: 'ai-card', valid: true, errors: [], warnings: [] });
  });

  it('reports every missing required member at once', () => {
    const card = edit(AI_CARD as Json, (c) => {
      delete c['$schema'];
      delete c['name'];
      delete c['publisher'];
      delete c['createdAt'];
    });
    expect(errorsOf(card)).toEqual(['FIELD_MISSING@/$schema', 'FIELD_MISSING@/name', 'FIELD_MISSING@/publisher', 'FIELD_MISSING@/createdAt']);
  });

  it.each(['1.0.0', '1', '01.0', 'v1.0', '1.-1'])('refuses specVersion %s (Major.Minor only)', (specVersion) => {
    expect(errorsOf({ ...AI_CARD, specVersion })).toEqual(['SPEC_VERSION_INVALID@/specVersion']);
  });

  it('refuses a major other than 1 and names it', () => {
    const result = check({ ...AI_CARD, specVersion: '2.0' });
    expect(result.errors).toEqual([expect.objectContaining({ code: 'SPEC_VERSION_UNSUPPORTED', path: '/specVersion', message: expect.stringContaining('major version 2') })]);
  });

  it('keeps maps closed for "1.0" and warns for a later 1.x', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['homepage'] = 'https://orbit.example';
      c['publisher']['country'] = 'NL';
    });
    expect(errorsOf(card)).toEqual(['FIELD_UNKNOWN@/homepage', 'FIELD_UNKNOWN@/publisher/country']);
    const later = { ...card, specVersion: '1.2' };
    expect(check(later).valid).toBe(true);
    expect(warningsOf(later)).toEqual(['FIELD_UNKNOWN@/homepage', 'FIELD_UNKNOWN@/publisher/country']);
  });

  it('leaves metadata and protocolSpecific open', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['metadata']['anything'] = { nested: true };
      c['services']['mcp']['protocolSpecific']['vendorHint'] = 1;
    });
    expect(check(card).valid).toBe(true);
  });

  it('requires each services key to equal its type exactly', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['services']['A2A'] = c['services']['a2a'];
      delete c['services']['a2a'];
    });
    expect(errorsOf(card)).toEqual(['SERVICE_KEY_MISMATCH@/services/A2A/type']);
  });

  it('accepts an unknown service type with an opaque protocolSpecific', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['services'] = { 'x-grpc': { type: 'x-grpc', name: 'gRPC', protocolSpecific: { skills: 'n/a' } } };
    });
    expect(check(card)).toMatchObject({ valid: true, warnings: [] });
  });

  it('refuses an empty services map', () => {
    expect(errorsOf({ ...AI_CARD, services: {} })).toEqual(['SERVICES_EMPTY@/services']);
  });

  it('requires each service to carry type, name and protocolSpecific', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['services']['mcp'] = { type: 'mcp' };
    });
    expect(errorsOf(card)).toEqual(['FIELD_MISSING@/services/mcp/name', 'FIELD_MISSING@/services/mcp/protocolSpecific']);
  });

  it.each([
    ['did', 'spiffe://orbit.example/weather'],
    ['spiffe', 'did:web:orbit.example'],
    ['url', 'did:web:orbit.example'],
  ])('refuses identityType %s for id %s', (identityType, id) => {
    expect(errorsOf({ ...AI_CARD, identityType, id })).toEqual(['IDENTITY_TYPE_MISMATCH@/identityType']);
  });

  it.each([
    ['spiffe', 'spiffe://orbit.example/weather'],
    ['url', 'https://orbit.example/agents/weather'],
  ])('accepts identityType %s for id %s', (identityType, id) => {
    expect(check({ ...AI_CARD, identityType, id }).valid).toBe(true);
  });

  it('refuses ids and policy URLs that are not absolute URIs', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['id'] = 'orbit-weather';
      delete c['identityType'];
      c['trust']['privacyPolicyUrl'] = '/privacy';
    });
    expect(errorsOf(card)).toEqual(['URI_NOT_ABSOLUTE@/id', 'URI_NOT_ABSOLUTE@/trust/privacyPolicyUrl']);
  });

  it.each(['2026-01-05', '2026-01-05T08:00:00', '2026-02-30T08:00:00Z', '2026-01-05 08:00:00Z', 'Mon, 05 Jan 2026 08:00:00 GMT'])(
    'refuses createdAt %s (RFC 3339 with offset only)',
    (createdAt) => {
      expect(errorsOf({ ...AI_CARD, createdAt })).toEqual(['TIMESTAMP_INVALID@/createdAt']);
    },
  );

  it('accepts a leap second and lowercase separators', () => {
    expect(check({ ...AI_CARD, createdAt: '2016-12-31t23:59:60z' }).valid).toBe(true);
  });

  it('refuses updatedAt earlier than createdAt, compared as instants', () => {
    // 09:30+01:00 is 08:30Z: later than 08:00Z, so the fixture is valid; 08:30+01:00 is 07:30Z.
    expect(errorsOf({ ...AI_CARD, createdAt: '2026-02-10T08:00:00Z', updatedAt: '2026-02-10T08:30:00+01:00' })).toEqual(['TIMESTAMP_ORDER@/updatedAt']);
  });

  it.each(['http://orbit.example/logo.png', 'ftp://orbit.example/logo.png', 'data:text/html,<b>x</b>'])('refuses logoUrl %s', (logoUrl) => {
    expect(errorsOf({ ...AI_CARD, logoUrl })).toEqual(['LOGO_URL_SCHEME@/logoUrl']);
  });

  it('accepts an https logo and warns about an SVG data URL', () => {
    expect(check({ ...AI_CARD, logoUrl: 'https://orbit.example/logo.png' })).toMatchObject({ valid: true, warnings: [] });
    const svg = { ...AI_CARD, logoUrl: 'data:image/svg+xml;base64,PHN2Zy8+' };
    expect(check(svg).valid).toBe(true);
    expect(warningsOf(svg)).toEqual(['LOGO_URL_SVG@/logoUrl']);
  });

  it('warns about an attestation with neither credential, without invalidating the card', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['trust']['attestations'].push({ type: 'HIPAA' });
    });
    expect(check(card).valid).toBe(true);
    expect(warningsOf(card)).toEqual(['ATTESTATION_NO_CREDENTIAL@/trust/attestations/1']);
  });

  it('checks maturity, tags and the publisher', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['maturity'] = 'beta';
      c['tags'] = ['ok', 3];
      c['publisher'] = { id: 'orbit', identityType: 'dns', name: 'Orbit' };
    });
    expect(errorsOf(card)).toEqual(['FIELD_TYPE@/tags/1', 'VALUE_NOT_ALLOWED@/maturity', 'IDENTITY_TYPE_MISMATCH@/publisher/id']);
    expect(check(edit(AI_CARD as Json, (c) => (c['publisher'] = { id: 'orbit.example', identityType: 'dns', name: 'Orbit' }))).valid).toBe(true);
  });

  it('checks protocolSpecific against A2A and MCP shapes as warnings only', () => {
    const card = edit(AI_CARD as Json, (c) => {
      c['services']['a2a']['protocolSpecific']['skills'] = [{ id: 'forecast' }];
      c['services']['mcp']['protocolSpecific']['tools'] = [{ description: 'no name' }];
    });
    const result = check(card);
    expect(result.valid).toBe(true);
    expect(warningsOf(card)).toEqual([
      'PROTOCOL_SPECIFIC_SHAPE@/services/a2a/protocolSpecific/skills/0/name',
      'PROTOCOL_SPECIFIC_SHAPE@/services/a2a/protocolSpecific/skills/0/description',
      'PROTOCOL_SPECIFIC_SHAPE@/services/mcp/protocolSpecific/tools/0/name',
    ]);
  });
});
