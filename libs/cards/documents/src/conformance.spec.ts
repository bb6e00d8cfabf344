/**
 * Conformance against the reference fixtures in `<repo root>/../shared/spec/ai-card` (CARDS.md "Data here"),
 * registered only when that folder exists: a clean clone has no such folder and runs the one test that says so.
 * Every file the manifests list runs with the manifest's verdict, except by these stated rules:
 * - test-vectors are from an April-May 2026 draft; each is translated to the final model as the manifest's
 *   `finalModel` text says (`translateDraftCatalog` below) and checked against its `finalModel` verdict, and
 *   each negative must fail with the code `NEGATIVE_REASONS` names. Two translation details the text leaves
 *   open: a draft string `signature` has no final form (no signer, profile, issuedAt) and is dropped; an empty
 *   manifest is omitted only when the draft one was sound (identity = entry identifier), so a draft identity
 *   error stays an error (TRUST_MANIFEST_EMPTY), as the manifest's notes for those two negatives say.
 *   Entries whose `finalModel` is "n/a" (conversion inputs, integration inputs) are not AI Catalogs: skipped.
 * - catalog/examples fragments (rule CatalogEntry, HostInfo, Attestation, ...) are wrapped in the smallest
 *   catalog that holds them; the signing PAYLOAD example gets the `jws` its note says a stored manifest carries.
 * - a2a examples: the two cards must validate as A2A v1.0; the canonicalisation fragments are signing inputs,
 *   not cards (the signatures library checks them). mcp/ lists only a schema: no document to run.
 * Signatures are never verified here (the signatures library does that); placeholders pass as shapes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { validateDocument, type ValidationResult } from './index';

const SPEC_ROOT = resolve(__dirname, '../../../..', '../shared/spec/ai-card');
const present = existsSync(join(SPEC_ROOT, 'CARDS.md'));

const METADATA = 'https://ai-catalog.org/extensions/metadata';
const POLICY_URLS = 'https://ai-catalog.org/extensions/policy-urls';

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const readJson = (path: string): unknown => JSON.parse(readFileSync(join(SPEC_ROOT, path), 'utf8'));
const explain = (result: ValidationResult): string => JSON.stringify(result.errors.map((issue) => `${issue.code} ${issue.path}`));

/** The draft → final translation the test-vectors manifest describes in its `finalModel` member. */
function translateDraftCatalog(draft: unknown): unknown {
  if (!isJson(draft)) return draft;
  const catalog: Json = { ...draft };
  moveMetadata(catalog);
  if (isJson(catalog['host'])) {
    const host: Json = { ...catalog['host'] };
    delete host['trustManifest'];
    catalog['host'] = host;
  }
  if (Array.isArray(catalog['entries'])) catalog['entries'] = catalog['entries'].map(translateEntry);
  return catalog;
}

function translateEntry(draft: unknown): unknown {
  if (!isJson(draft)) return draft;
  const entry: Json = { ...draft };
  if ('mediaType' in entry) {
    entry['type'] = entry['mediaType'];
    delete entry['mediaType'];
  }
  moveMetadata(entry);
  if (entry['type'] === 'application/ai-catalog+json' && isJson(entry['data'])) entry['data'] = translateDraftCatalog(entry['data']);
  const draftManifest = entry['trustManifest'];
  delete entry['trustManifest'];
  if (!isJson(draftManifest)) return entry;
  const { identity, identityType: _identityType, privacyPolicyUrl, termsOfServiceUrl, signature: _draftSignature, metadata, mediaType: _m, ...rest } = draftManifest;
  if (privacyPolicyUrl !== undefined || termsOfServiceUrl !== undefined) {
    entry['extensions'] = { ...(isJson(entry['extensions']) ? entry['extensions'] : {}), [POLICY_URLS]: { privacyPolicyUrl, termsOfServiceUrl } };
  }
  // A draft string signature has no signer, profile or issuedAt: it has no final form and is dropped.
  const manifest: Json = { ...(identity !== undefined ? { contributor: identity } : {}), ...rest };
  if (Array.isArray(manifest['attestations'])) {
    manifest['attestations'] = manifest['attestations'].map((item) => {
      if (!isJson(item)) return item;
      const { mediaType: _mediaType, ...attestation } = item;
      return attestation;
    });
  }
  if (metadata !== undefined) manifest['extensions'] = { [METADATA]: metadata };
  const substance = ['trustSchema', 'attestations', 'provenance', 'extensions'].some((key) => manifest[key] !== undefined);
  // Empty manifests are omitted, but only where the draft manifest was itself sound (identity = identifier):
  // a draft error (missing or mismatched identity) must survive as the final rule's error (an empty manifest).
  if (!substance && identity === entry['identifier']) return entry;
  entry['trustManifests'] = [manifest];
  return entry;
}

function moveMetadata(object: Json): void {
  if (!('metadata' in object)) return;
  object['extensions'] = { ...(isJson(object['extensions']) ? object['extensions'] : {}), [METADATA]: object['metadata'] };
  delete object['metadata'];
}

/** For each negative vector, the code that must name its fault (so a negative cannot pass for a wrong reason). */
const NEGATIVE_REASONS: Readonly<Record<string, string>> = {
  'negative/attestation-negative-size.json': 'FIELD_TYPE',
  'negative/both-url-and-data.json': 'ENTRY_CONTENT_BOTH',
  'negative/data-null.json': 'ENTRY_CONTENT_MISSING',
  'negative/depth-exceeds-limit.json': 'NESTED_CATALOG_TOO_DEEP',
  'negative/duplicate-identifier-version.json': 'ENTRY_DUPLICATE_VERSION',
  'negative/duplicate-identifier.json': 'ENTRY_DUPLICATE_IDENTIFIER',
  'negative/entries-wrong-type.json': 'FIELD_TYPE',
  'negative/host-display-name-wrong-type.json': 'FIELD_TYPE',
  'negative/http-url-not-https.json': 'URL_NOT_HTTPS',
  'negative/invalid-json.txt': 'JSON_SYNTAX',
  'negative/invalid-nested-catalog.json': 'FIELD_MISSING',
  'negative/invalid-tags-type.json': 'FIELD_TYPE',
  'negative/invalid-updated-at.json': 'TIMESTAMP_INVALID',
  'negative/missing-attestation-type.json': 'FIELD_MISSING',
  'negative/missing-attestation-uri.json': 'FIELD_MISSING',
  'negative/missing-entries.json': 'FIELD_MISSING',
  'negative/missing-entry-content.json': 'ENTRY_CONTENT_MISSING',
  'negative/missing-entry-identifier.json': 'FIELD_MISSING',
  'negative/missing-entry-media-type.json': 'FIELD_MISSING',
  'negative/missing-host-display-name.json': 'FIELD_MISSING',
  'negative/missing-provenance-fields.json': 'FIELD_MISSING',
  'negative/missing-publisher-fields.json': 'FIELD_MISSING',
  'negative/missing-spec-version.json': 'FIELD_MISSING',
  'negative/missing-trust-manifest-identity.json': 'FIELD_MISSING',
  'negative/missing-trust-schema-fields.json': 'FIELD_MISSING',
  'negative/root-not-object.json': 'KIND_UNKNOWN',
  'negative/spec-version-empty.json': 'SPEC_VERSION_INVALID',
  'negative/spec-version-null.json': 'SPEC_VERSION_INVALID',
  'negative/spec-version-wrong-type.json': 'SPEC_VERSION_INVALID',
  'negative/triple-entry-duplicate-version.json': 'ENTRY_DUPLICATE_VERSION',
  'negative/trust-identity-mismatch.json': 'TRUST_MANIFEST_EMPTY',
  'negative/updated-at-wrong-type.json': 'FIELD_TYPE',
  'negative/version-negative.json': 'SPEC_VERSION_INVALID',
  'negative/version-no-minor.json': 'SPEC_VERSION_INVALID',
  'negative/version-non-integer.json': 'SPEC_VERSION_INVALID',
  'negative/version-three-segments.json': 'SPEC_VERSION_INVALID',
  'negative/version-unsupported-major.json': 'SPEC_VERSION_UNSUPPORTED',
  'negative/weak-digest-algorithm.json': 'DIGEST_WEAK',
};

interface VectorFixture {
  file: string;
  kind: string;
  finalModel: string;
}

interface ExampleFile {
  file: string;
  kind: string;
  seedCddl: string;
}

interface CatalogExample {
  file: string;
  rule: string;
  valid: boolean;
}

/** The smallest final catalog holding a catalog/examples fragment of the given CDDL rule. */
function wrapFragment(rule: string, fragment: unknown): unknown {
  const entry = (extra: Json): Json => ({ identifier: 'urn:air:example.com:agent:fragment', type: 'application/a2a-agent-card+json', url: 'https://example.com/card.json', ...extra });
  const manifest = (extra: Json): Json => ({ contributor: 'did:web:example.com', ...extra });
  if (rule === 'AICatalog') return fragment;
  if (rule === 'CatalogEntry') return { specVersion: '1.0', entries: [fragment] };
  if (rule === 'HostInfo') return { specVersion: '1.0', host: fragment, entries: [] };
  if (rule === 'Attestation') return { specVersion: '1.0', entries: [entry({ trustManifests: [manifest({ attestations: [fragment] })] })] };
  if (rule === 'TrustSchema') return { specVersion: '1.0', entries: [entry({ trustManifests: [manifest({ trustSchema: fragment })] })] };
  if (rule === 'ProvenanceLink') return { specVersion: '1.0', entries: [entry({ trustManifests: [manifest({ provenance: [fragment] })] })] };
  if (rule.startsWith('CatalogEntry.extensions')) return { specVersion: '1.0', entries: [entry(isJson(fragment) ? fragment : {})] };
  if (rule === 'TrustManifest signing payload' && isJson(fragment) && isJson(fragment['subject']) && isJson(fragment['signature'])) {
    const subject = fragment['subject'];
    const stored = { ...fragment, signature: { ...fragment['signature'], jws: 'eyJhbGciOiJFUzI1NiJ9..c2lnbmF0dXJl' } };
    return { specVersion: '1.0', entries: [{ url: 'https://example.com/artifact', ...subject, trustManifests: [stored] }] };
  }
  throw new Error(`no wrapping rule for ${rule}`);
}

describe('conformance with the shared AI Card fixtures', () => {
  it(`runs against ../shared/spec/ai-card only when it exists (present here: ${present})`, () => {
    expect(typeof present).toBe('boolean');
  });

  if (!present) return;

  describe('test-vectors, translated to the final model', () => {
    const manifest = readJson('test-vectors/manifest.json') as { fixtures: VectorFixture[] };
    const runnable = manifest.fixtures.filter((fixture) => fixture.finalModel !== 'n/a');
    it('lists the fixtures this suite runs', () => {
      expect(runnable.length).toBeGreaterThan(60);
    });
    it.each(runnable.map((fixture) => [fixture.file, fixture] as const))('%s', (_file, fixture) => {
      const path = join('test-vectors', fixture.file);
      const expected = fixture.finalModel === 'valid';
      const wrapper = fixture.kind === 'raw' ? undefined : (readJson(path) as Json);
      const result = wrapper
        ? validateDocument(JSON.stringify(translateDraftCatalog(wrapper['input'])))
        : validateDocument(readFileSync(join(SPEC_ROOT, path)));
      expect({ valid: result.valid, errors: explain(result) }).toEqual({ valid: expected, errors: expect.any(String) });
      if (!expected) expect(result.errors.map((issue) => issue.code)).toContain(NEGATIVE_REASONS[fixture.file]);
      if (isJson(wrapper?.['input'])) expect(result).toMatchObject({ kind: 'ai-catalog', form: 'final' });
    });
  });

  describe('examples/ai-card-v1 against the seed CDDL', () => {
    const manifest = readJson('examples/ai-card-v1/manifest.json') as { files: ExampleFile[] };
    it.each(manifest.files.map((file) => [file.file, file] as const))('%s', (_file, file) => {
      const result = validateDocument(readFileSync(join(SPEC_ROOT, 'examples/ai-card-v1', file.file)));
      expect({ valid: result.valid, errors: explain(result) }).toEqual({ valid: file.seedCddl === 'valid', errors: expect.any(String) });
      expect(result.kind).toBe(file.kind === 'AICatalog' ? 'ai-catalog' : 'ai-card');
    });
  });

  describe('examples/ai-card-v1 draft catalogs in compatibility mode (CARDS.md §2.1)', () => {
    const manifest = readJson('examples/ai-card-v1/manifest.json') as { files: ExampleFile[] };
    const drafts = manifest.files.filter((file) => file.kind === 'AICatalog');
    it.each(drafts.map((file) => [file.file] as const))('%s is accepted with warnings only', (file) => {
      const result = validateDocument(readFileSync(join(SPEC_ROOT, 'examples/ai-card-v1', file)), { compatibility: true });
      expect({ valid: result.valid, errors: explain(result) }).toEqual({ valid: true, errors: '[]' });
      expect(result.warnings.map((issue) => issue.code)).toContain('CATALOG_DRAFT_FORM');
    });
  });

  describe('catalog/examples of the final model', () => {
    const manifest = readJson('catalog/manifest.json') as { examples: CatalogExample[] };
    it.each(manifest.examples.map((example) => [example.file, example] as const))('%s', (_file, example) => {
      const document = wrapFragment(example.rule, readJson(join('catalog', example.file)));
      const result = validateDocument(JSON.stringify(document));
      expect({ valid: result.valid, errors: explain(result) }).toEqual({ valid: example.valid, errors: expect.any(String) });
    });
  });

  describe('a2a examples', () => {
    const manifest = readJson('a2a/manifest.json') as { examples: { file: string; cardVersion?: string }[] };
    const cards = manifest.examples.filter((example) => example.cardVersion !== undefined);
    it('lists the two sample cards', () => {
      expect(cards).toHaveLength(2);
    });
    it.each(cards.map((example) => [example.file] as const))('%s is a valid A2A v1.0 card', (file) => {
      const result = validateDocument(readFileSync(join(SPEC_ROOT, 'a2a', file)));
      expect({ kind: result.kind, valid: result.valid, errors: explain(result) }).toEqual({ kind: 'a2a', valid: true, errors: '[]' });
    });
  });

  describe('mcp', () => {
    it('lists a schema and no server.json document to run', () => {
      const manifest = readJson('mcp/manifest.json') as Json;
      expect(manifest['file']).toBe('server.schema.2025-12-11.json');
      expect(manifest['examples']).toBeUndefined();
    });
  });
});
