import { check, edit, errorsOf, FINAL_CATALOG, warningsOf } from './documents.fixtures';

// Specs edit fixtures freely; their shape is what the validator under test checks.
type Json = Record<string, any>;

const entry0 = (change: (entry: Json) => void): Json => edit(FINAL_CATALOG as Json, (c) => change(c['entries'][0]));
const manifest0 = (change: (manifest: Json) => void): Json => edit(FINAL_CATALOG as Json, (c) => change(c['entries'][0]['trustManifests'][0]));

/** A catalog nesting `levels` catalogs in total (the root included), each inline in `data`. */
function nested(levels: number): Json {
  let catalog: Json = { specVersion: '1.0', entries: [] };
  for (let level = levels - 1; level >= 1; level -= 1) {
    catalog = { specVersion: '1.0', entries: [{ identifier: `urn:air:orbit.example:catalog:l${level + 1}`, type: 'application/ai-catalog+json', data: catalog }] };
  }
  return catalog;
}

describe('final AI Catalog validation (CARDS.md §2.3)', () => {
  it('accepts a catalog with signed and unsigned manifests and an inline nested catalog', () => {
    expect(check(FINAL_CATALOG)).toMatchObject({ kind: 'ai-catalog', form: 'final', valid: true, errors: [], warnings: [] });
  });

  it('accepts an empty entries array and needs no host', () => {
    expect(check({ specVersion: '1.0', entries: [] })).toMatchObject({ valid: true, form: 'final' });
  });

  it.each([['1'], ['1.0.0'], ['-1.0'], ['a.b'], [''], [null], [1], [1.0]])('refuses specVersion %p', (specVersion) => {
    expect(errorsOf({ specVersion, entries: [] })).toEqual(['SPEC_VERSION_INVALID@/specVersion']);
  });

  it('refuses a higher major with a message naming it, and ignores unknown members of 1.x', () => {
    const result = check({ specVersion: '3.1', entries: [] });
    expect(result.errors).toEqual([expect.objectContaining({ code: 'SPEC_VERSION_UNSUPPORTED', message: expect.stringContaining('major version 3') })]);
    expect(check({ specVersion: '1.7', entries: [], futureMember: { x: 1 } })).toMatchObject({ valid: true, warnings: [] });
  });

  it('keeps unknown members in the parsed value', () => {
    const result = check(entry0((e) => (e['x-vendor'] = { keep: true })));
    expect(result.valid).toBe(true);
    expect((result.value as Json)['entries'][0]['x-vendor']).toEqual({ keep: true });
  });

  it('requires identifier and type on every entry', () => {
    expect(errorsOf(entry0((e) => { delete e['identifier']; delete e['type']; }))).toEqual(['FIELD_MISSING@/entries/0/identifier', 'FIELD_MISSING@/entries/0/type']);
    expect(errorsOf(entry0((e) => { e['type'] = 'agent card'; delete e['trustManifests']; }))).toEqual(['FIELD_PATTERN@/entries/0/type']);
  });

  it('warns about an identifier without a scheme (opaque)', () => {
    const catalog = entry0((e) => (e['identifier'] = 'weather-agent'));
    expect(errorsOf(catalog)).toEqual(['SUBJECT_MISMATCH@/entries/0/trustManifests/0/subject/identifier']);
    expect(warningsOf(catalog)).toEqual(['IDENTIFIER_OPAQUE@/entries/0/identifier']);
  });

  it('requires url xor data, with data: null counting as absent', () => {
    expect(errorsOf(entry0((e) => (e['data'] = { inline: true })))).toEqual(['ENTRY_CONTENT_BOTH@/entries/0']);
    const withoutContent = entry0((e) => { delete e['url']; e['data'] = null; delete e['trustManifests']; });
    expect(errorsOf(withoutContent)).toEqual(['ENTRY_CONTENT_MISSING@/entries/0']);
    expect(check(entry0((e) => { delete e['url']; e['data'] = false; delete e['trustManifests']; })).valid).toBe(true);
  });

  it('requires an https url', () => {
    expect(errorsOf(entry0((e) => { e['url'] = 'http://orbit.example/card.json'; delete e['trustManifests']; }))).toEqual(['URL_NOT_HTTPS@/entries/0/url']);
  });

  it('lets identifiers repeat only with distinct versions', () => {
    const second = { identifier: 'urn:air:orbit.example:agent:weather', type: 'application/a2a-agent-card+json', url: 'https://orbit.example/v2.json' };
    expect(errorsOf(edit(FINAL_CATALOG as Json, (c) => c['entries'].push({ ...second, version: '2.2.0' })))).toEqual([]);
    expect(errorsOf(edit(FINAL_CATALOG as Json, (c) => c['entries'].push({ ...second, version: '2.1.0' })))).toEqual(['ENTRY_DUPLICATE_VERSION@/entries/2/version']);
    expect(errorsOf(edit(FINAL_CATALOG as Json, (c) => c['entries'].push(second)))).toEqual(['ENTRY_DUPLICATE_IDENTIFIER@/entries/2/identifier']);
  });

  it.each([
    ['sha1:' + 'a'.repeat(40), 'DIGEST_WEAK'],
    ['md5:' + 'a'.repeat(32), 'DIGEST_WEAK'],
    ['sha-256:' + 'A'.repeat(64), 'DIGEST_INVALID'],
    ['sha-256:' + 'a'.repeat(63), 'DIGEST_INVALID'],
    ['a'.repeat(64), 'DIGEST_INVALID'],
    ['blake9:' + 'a'.repeat(64), 'DIGEST_INVALID'],
  ])('refuses digest %s with %s', (digest, code) => {
    const catalog = entry0((e) => { e['digest'] = digest; delete e['trustManifests']; });
    expect(errorsOf(catalog)).toEqual([`${code}@/entries/0/digest`]);
  });

  it('accepts sha-384, sha-512 and the compact sha256 spelling', () => {
    for (const digest of [`sha-384:${'c'.repeat(96)}`, `sha512:${'d'.repeat(128)}`, `sha256:${'e'.repeat(64)}`]) {
      expect(check(entry0((e) => { e['digest'] = digest; delete e['trustManifests']; })).valid).toBe(true);
    }
  });

  it('requires publisher identifier and displayName', () => {
    expect(errorsOf(entry0((e) => (e['publisher'] = { identityType: 'did' })))).toEqual([
      'FIELD_MISSING@/entries/0/publisher/identifier',
      'FIELD_MISSING@/entries/0/publisher/displayName',
    ]);
  });

  it('requires extension keys to be URLs or reverse-DNS names', () => {
    const catalog = entry0((e) => (e['extensions'] = { 'com.orbit.registry': {}, 'https://orbit.example/ext': 1, metadata: {}, '': 2 }));
    expect(errorsOf(catalog)).toEqual(['EXTENSION_KEY_INVALID@/entries/0/extensions/metadata', 'EXTENSION_KEY_INVALID@/entries/0/extensions/']);
  });

  it('refuses a trust manifest with no substance', () => {
    expect(errorsOf(entry0((e) => e['trustManifests'].push({ contributor: 'did:web:other.example', attestations: [], provenance: [], extensions: {} })))).toEqual([
      'TRUST_MANIFEST_EMPTY@/entries/0/trustManifests/2',
    ]);
  });

  it('requires a contributor URI', () => {
    expect(errorsOf(manifest0((m) => (m['contributor'] = 'orbit labs')))).toEqual(['URI_NOT_ABSOLUTE@/entries/0/trustManifests/0/contributor']);
  });

  it('requires a subject on a signed manifest', () => {
    expect(errorsOf(manifest0((m) => delete m['subject']))).toEqual(['SUBJECT_REQUIRED@/entries/0/trustManifests/0/subject']);
  });

  it('binds the subject to its entry', () => {
    const catalog = manifest0((m) => {
      m['subject'] = { identifier: 'urn:air:orbit.example:agent:other', type: 'application/json', url: 'https://orbit.example/elsewhere.json' };
    });
    expect(errorsOf(catalog)).toEqual([
      'SUBJECT_MISMATCH@/entries/0/trustManifests/0/subject/identifier',
      'SUBJECT_MISMATCH@/entries/0/trustManifests/0/subject/type',
      'SUBJECT_MISMATCH@/entries/0/trustManifests/0/subject/version',
      'SUBJECT_MISMATCH@/entries/0/trustManifests/0/subject/url',
    ]);
    expect(errorsOf(manifest0((m) => { delete m['subject']['digest']; }))).toEqual(['SUBJECT_BINDING_MISSING@/entries/0/trustManifests/0/subject']);
  });

  it('checks the Signature object', () => {
    const catalog = manifest0((m) => {
      m['signature'] = { signer: 'orbit', profile: 'did web', issuedAt: '2026-03-01T12:00:00Z', expiresAt: '2026-03-01T11:00:00Z', jws: '' };
    });
    expect(errorsOf(catalog)).toEqual([
      'URI_NOT_ABSOLUTE@/entries/0/trustManifests/0/signature/signer',
      'SIGNATURE_PROFILE_INVALID@/entries/0/trustManifests/0/signature/profile',
      'TIMESTAMP_ORDER@/entries/0/trustManifests/0/signature/expiresAt',
      'FIELD_EMPTY@/entries/0/trustManifests/0/signature/jws',
    ]);
    expect(check(manifest0((m) => (m['signature']['profile'] = 'https://registry.trustmesh.example/profiles/eddsa-v1'))).valid).toBe(true);
  });

  it('checks attestations, trust schemas and provenance inside manifests', () => {
    const catalog = manifest0((m) => {
      m['attestations'] = [{ type: 'SOC2', uri: 'ftp://x.example/a', size: -1 }];
      m['trustSchema'] = { identifier: 'urn:x' };
      m['provenance'] = [{ relation: 'derivedFrom' }];
    });
    expect(errorsOf(catalog)).toEqual([
      'FIELD_MISSING@/entries/0/trustManifests/0/trustSchema/version',
      'URL_NOT_HTTPS@/entries/0/trustManifests/0/attestations/0/uri',
      'FIELD_TYPE@/entries/0/trustManifests/0/attestations/0/size',
      'FIELD_MISSING@/entries/0/trustManifests/0/provenance/0/sourceId',
    ]);
  });

  it('validates inline nested catalogs recursively, with their own pointers', () => {
    const catalog = edit(FINAL_CATALOG as Json, (c) => delete c['entries'][1]['data']['entries'][0]['type']);
    expect(errorsOf(catalog)).toEqual(['FIELD_MISSING@/entries/1/data/entries/0/type']);
  });

  it('follows at most 4 catalog levels, the root included', () => {
    expect(check(nested(4)).valid).toBe(true);
    expect(errorsOf(nested(5))).toEqual(['NESTED_CATALOG_TOO_DEEP@/entries/0/data/entries/0/data/entries/0/data/entries/0/data']);
  });

  it('checks the root signature and host', () => {
    const catalog = edit(FINAL_CATALOG as Json, (c) => {
      c['signature'] = { signer: 'did:web:orbit.example', profile: 'did-web-v1', issuedAt: 'yesterday', jws: 'x..y' };
      c['host'] = { identifier: 'did:web:orbit.example' };
      c['additionalSignatures'] = 'reserved, ignored';
    });
    expect(errorsOf(catalog)).toEqual(['FIELD_MISSING@/host/displayName', 'TIMESTAMP_INVALID@/signature/issuedAt']);
  });
});
