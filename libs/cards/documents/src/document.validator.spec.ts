import fc from 'fast-check';
import { A2A_V03, AI_CARD, check, edit, FINAL_CATALOG, MCP_SERVER, SEED_CATALOG } from './documents.fixtures';
import { ALL_ISSUE_CODES, detectDocumentKind, sha256Digest, validateDocument, type ValidateOptions, type ValidationResult } from './index';

// Specs edit fixtures freely; their shape is what the validator under test checks.
type Json = Record<string, any>;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const codes = (result: ValidationResult): string[] => [...result.errors, ...result.warnings].map((issue) => issue.code);

describe('validateDocument: reading the bytes', () => {
  it('gives the same verdict for bytes and text', () => {
    const text = JSON.stringify(AI_CARD);
    expect(validateDocument(bytes(text))).toEqual(validateDocument(text));
  });

  it.each([
    ['{"specVersion":"1.0","entries":[],"entries":[]}', 'JSON_DUPLICATE_KEY', ''],
    ['{"specVersion":"1.0","entries":[{"identifier":"\\ud800"}]}', 'JSON_LONE_SURROGATE', '/entries/0/identifier'],
    ['{"specVersion":"1.0","entries":[],"n":9007199254740993}', 'JSON_UNSAFE_INTEGER', '/n'],
    ['{"specVersion":"1.0",', 'JSON_SYNTAX', ''],
    ['[]'.padStart(200, '['), 'JSON_SYNTAX', ''],
  ])('refuses %s with %s and does not validate further', (text, code, path) => {
    const result = validateDocument(text);
    expect(result).toMatchObject({ kind: undefined, valid: false, warnings: [] });
    expect(result.errors).toEqual([expect.objectContaining({ code, path, severity: 'error' })]);
    expect(result.value).toBeUndefined();
  });

  it('refuses nesting deeper than the reader bound', () => {
    const deep = '{"a":'.repeat(70) + '1' + '}'.repeat(70);
    expect(codes(validateDocument(deep))).toEqual(['JSON_TOO_DEEP']);
  });

  it('ignores a byte order mark with a warning, alike for bytes and text', () => {
    const text = `\uFEFF${JSON.stringify(AI_CARD)}`;
    for (const result of [validateDocument(text), validateDocument(bytes(text))]) {
      expect(result).toMatchObject({ kind: 'ai-card', valid: true });
      expect(codes(result)).toEqual(['DOCUMENT_BOM']);
    }
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(codes(validateDocument(new Uint8Array([0x7b, 0xff, 0x7d])))).toEqual(['DOCUMENT_NOT_UTF8']);
  });

  it('refuses a document above maxBytes before reading it, counting UTF-8 bytes', () => {
    const text = JSON.stringify({ ...AI_CARD, description: 'é'.repeat(400) });
    expect(codes(validateDocument(text, { maxBytes: text.length }))).toEqual(['DOCUMENT_TOO_LARGE']);
    expect(validateDocument(text, { maxBytes: bytes(text).byteLength }).valid).toBe(true);
    expect(codes(validateDocument(bytes(text), { maxBytes: 100 }))).toEqual(['DOCUMENT_TOO_LARGE']);
  });

  it('never throws and always reports a consistent verdict on arbitrary text and JSON', () => {
    const consistent = (result: ValidationResult): boolean =>
      result.valid === (result.errors.length === 0) && [...result.errors, ...result.warnings].every((issue) => (ALL_ISSUE_CODES as readonly string[]).includes(issue.code));
    fc.assert(fc.property(fc.string(), (text) => consistent(validateDocument(text))), { numRuns: 300 });
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom<ValidateOptions['kind']>('auto', 'ai-card', 'ai-catalog', 'a2a', 'mcp-server'), (value, kind) =>
        consistent(validateDocument(JSON.stringify(value) ?? 'null', { kind })),
      ),
      { numRuns: 500 },
    );
  });

  it('never throws on random edits of valid documents', () => {
    const documents = [AI_CARD, SEED_CATALOG, FINAL_CATALOG, A2A_V03, MCP_SERVER];
    fc.assert(
      fc.property(fc.constantFrom(...documents), fc.jsonValue(), fc.nat(), (document, replacement, pick) => {
        const copy: Json = structuredClone(document);
        const keys = Object.keys(copy);
        copy[keys[pick % keys.length] ?? 'x'] = replacement;
        const result = check(copy);
        return result.valid === (result.errors.length === 0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('validateDocument: kinds', () => {
  it.each([
    [AI_CARD, 'ai-card', undefined],
    [SEED_CATALOG, 'ai-catalog', 'seed'],
    [FINAL_CATALOG, 'ai-catalog', 'final'],
    [A2A_V03, 'a2a', undefined],
    [MCP_SERVER, 'mcp-server', undefined],
  ])('detects %#', (document, kind, form) => {
    const result = check(document);
    expect(result).toMatchObject({ kind, valid: true });
    expect(result.form).toBe(form);
  });

  it('exposes detection for parsed values', () => {
    expect(detectDocumentKind(FINAL_CATALOG)).toEqual({ kind: 'ai-catalog', form: 'final' });
    expect(detectDocumentKind({ name: 'x' })).toBeUndefined();
  });

  it('reports one KIND_UNKNOWN for an unrecognisable object or a non-object', () => {
    for (const document of [{ hello: 'world' }, [AI_CARD], 'card', null]) {
      const result = check(document);
      expect(result).toMatchObject({ kind: undefined, valid: false });
      expect(codes(result)).toEqual(['KIND_UNKNOWN']);
    }
  });

  it('validates as the kind it is told, whatever the shape', () => {
    const result = check(A2A_V03, { kind: 'ai-card' });
    expect(result.kind).toBe('ai-card');
    expect(codes(result)).toContain('FIELD_MISSING');
    expect(codes(check([1], { kind: 'mcp-server' }))).toEqual(['DOCUMENT_NOT_OBJECT']);
  });
});

/** One document per code: proof that every code in ALL_ISSUE_CODES can be emitted. */
const PRODUCERS: Record<string, () => ValidationResult> = {
  DOCUMENT_TOO_LARGE: () => validateDocument('{}', { maxBytes: 1 }),
  DOCUMENT_NOT_UTF8: () => validateDocument(new Uint8Array([0xc3])),
  DOCUMENT_BOM: () => validateDocument('\uFEFF{}'),
  JSON_SYNTAX: () => validateDocument('{'),
  JSON_TOO_DEEP: () => validateDocument('['.repeat(100) + ']'.repeat(100)),
  JSON_DUPLICATE_KEY: () => validateDocument('{"a":1,"a":2}'),
  JSON_LONE_SURROGATE: () => validateDocument('{"a":"\\udc00"}'),
  JSON_UNSAFE_INTEGER: () => validateDocument('{"a":12345678901234567890}'),
  KIND_UNKNOWN: () => check({}),
  DOCUMENT_NOT_OBJECT: () => check(1, { kind: 'a2a' }),
  FIELD_MISSING: () => check({ specVersion: '1.0' }),
  FIELD_TYPE: () => check({ specVersion: '1.0', entries: {} }),
  FIELD_EMPTY: () => check({ ...MCP_SERVER, description: '' }),
  FIELD_UNKNOWN: () => check({ ...AI_CARD, extra: 1 }),
  FIELD_TOO_LONG: () => check({ ...MCP_SERVER, title: 'x'.repeat(101) }),
  FIELD_PATTERN: () => check({ ...MCP_SERVER, name: 'no-slash' }, { kind: 'mcp-server' }),
  VALUE_NOT_ALLOWED: () => check({ ...AI_CARD, maturity: 'alpha' }),
  URI_NOT_ABSOLUTE: () => check({ ...AI_CARD, $schema: 'schema.json' }),
  URL_NOT_HTTPS: () => check({ specVersion: '1.0', entries: [{ identifier: 'urn:x', type: 'application/json', url: 'http://x.example/' }] }),
  TIMESTAMP_INVALID: () => check({ ...AI_CARD, updatedAt: '2026-01-01' }),
  TIMESTAMP_ORDER: () => check({ ...AI_CARD, createdAt: '2027-01-01T00:00:00Z' }),
  SPEC_VERSION_INVALID: () => check({ ...AI_CARD, specVersion: '1.0.0' }),
  SPEC_VERSION_UNSUPPORTED: () => check({ ...AI_CARD, specVersion: '2.0' }),
  IDENTITY_TYPE_MISMATCH: () => check({ ...AI_CARD, identityType: 'spiffe' }),
  LOGO_URL_SCHEME: () => check({ ...AI_CARD, logoUrl: 'http://x.example/l.png' }),
  LOGO_URL_SVG: () => check({ ...AI_CARD, logoUrl: 'data:image/svg+xml,<svg/>' }),
  SERVICES_EMPTY: () => check({ ...AI_CARD, services: {} }),
  SERVICE_KEY_MISMATCH: () => check({ ...AI_CARD, services: { MCP: { type: 'mcp', name: 'm', protocolSpecific: {} } } }),
  ATTESTATION_NO_CREDENTIAL: () => check({ ...AI_CARD, trust: { attestations: [{ type: 'X' }] } }),
  PROTOCOL_SPECIFIC_SHAPE: () => check({ ...AI_CARD, services: { mcp: { type: 'mcp', name: 'm', protocolSpecific: { tools: 3 } } } }),
  CATALOG_DRAFT_FORM: () => check({ ...SEED_CATALOG, specVersion: '1.0.0' }),
  ENTRY_CONTENT_MISSING: () => check({ specVersion: '1.0', entries: [{ identifier: 'urn:x', type: 'application/json' }] }),
  ENTRY_CONTENT_BOTH: () => check({ specVersion: '1.0', entries: [{ identifier: 'urn:x', type: 'application/json', url: 'https://x.example/', data: 1 }] }),
  ENTRY_DUPLICATE_IDENTIFIER: () => check({ specVersion: '1.0', entries: [0, 1].map(() => ({ identifier: 'urn:x', type: 'application/json', data: 1 })) }),
  ENTRY_DUPLICATE_VERSION: () => check({ specVersion: '1.0', entries: [0, 1].map(() => ({ identifier: 'urn:x', version: '1', type: 'application/json', data: 1 })) }),
  IDENTIFIER_OPAQUE: () => check({ specVersion: '1.0', entries: [{ identifier: 'x', type: 'application/json', data: 1 }] }),
  DIGEST_INVALID: () => check({ specVersion: '1.0', entries: [{ identifier: 'urn:x', type: 'application/json', data: 1, digest: 'sha-256:zz' }] }),
  DIGEST_WEAK: () => check({ specVersion: '1.0', entries: [{ identifier: 'urn:x', type: 'application/json', data: 1, digest: 'md5:00' }] }),
  EXTENSION_KEY_INVALID: () => check({ specVersion: '1.0', entries: [], extensions: { bad: 1 } }),
  TRUST_MANIFEST_EMPTY: () => check(edit(FINAL_CATALOG as Json, (c) => c['entries'][0]['trustManifests'].push({ contributor: 'did:web:x.example' }))),
  SUBJECT_REQUIRED: () => check(edit(FINAL_CATALOG as Json, (c) => delete c['entries'][0]['trustManifests'][0]['subject'])),
  SUBJECT_MISMATCH: () => check(edit(FINAL_CATALOG as Json, (c) => (c['entries'][0]['trustManifests'][0]['subject']['type'] = 'text/plain'))),
  SUBJECT_BINDING_MISSING: () => check(edit(FINAL_CATALOG as Json, (c) => delete c['entries'][0]['trustManifests'][0]['subject']['digest'])),
  SIGNATURE_PROFILE_INVALID: () => check(edit(FINAL_CATALOG as Json, (c) => (c['entries'][0]['trustManifests'][0]['signature']['profile'] = 'v1'))),
  NESTED_CATALOG_TOO_DEEP: () =>
    check([2, 3, 4, 5].reduce<Json>((inner) => ({ specVersion: '1.0', entries: [{ identifier: 'urn:c', type: 'application/ai-catalog+json', data: inner }] }), { specVersion: '1.0', entries: [] })),
  MCP_VERSION_RANGE: () => check({ ...MCP_SERVER, version: '^1.0.0' }),
  MCP_PACKAGE_VERSION_LATEST: () => check({ ...MCP_SERVER, version: 'latest' }),
  MCP_FILE_SHA256_REQUIRED: () => check({ ...MCP_SERVER, packages: [{ registryType: 'mcpb', identifier: 'https://x.example/p.mcpb', transport: { type: 'stdio' } }] }),
};

describe('ALL_ISSUE_CODES', () => {
  it('lists exactly the codes this spec can produce', () => {
    expect(Object.keys(PRODUCERS).sort()).toEqual([...ALL_ISSUE_CODES].sort());
  });

  it.each(Object.entries(PRODUCERS))('%s is emitted', (code, produce) => {
    expect(codes(produce())).toContain(code);
  });
});

describe('sha256Digest', () => {
  it('gives the catalog form sha-256:<lowerhex> of the exact bytes', async () => {
    await expect(sha256Digest(bytes('abc'))).resolves.toBe('sha-256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    await expect(sha256Digest(new Uint8Array())).resolves.toBe('sha-256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
