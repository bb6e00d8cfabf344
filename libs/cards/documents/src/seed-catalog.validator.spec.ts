import { check, edit, errorsOf, SEED_CATALOG, warningsOf } from './documents.fixtures';

// Specs edit fixtures freely; their shape is what the validator under test checks.
type Json = Record<string, any>;

/** A draft-era catalog: specVersion "1.0.0", the array named `agents`, no updatedAt. */
const DRAFT_CATALOG: Json = edit(SEED_CATALOG as Json, (c) => {
  c['specVersion'] = '1.0.0';
  c['agents'] = c['aiCards'].map((entry: Json) => {
    const { updatedAt: _updatedAt, ...rest } = entry;
    return rest;
  });
  delete c['aiCards'];
});

describe('seed AI Catalog validation (CARDS.md §2.1)', () => {
  it('accepts a seed catalog, as form seed', () => {
    expect(check(SEED_CATALOG)).toMatchObject({ kind: 'ai-catalog', form: 'seed', valid: true, errors: [], warnings: [] });
  });

  it('keeps the seed maps closed', () => {
    const catalog = edit(SEED_CATALOG as Json, (c) => {
      c['extra'] = 1;
      c['host']['country'] = 'NL';
      c['aiCards'][0]['version'] = '1';
    });
    expect(errorsOf(catalog)).toEqual(['FIELD_UNKNOWN@/extra', 'FIELD_UNKNOWN@/host/country', 'FIELD_UNKNOWN@/aiCards/0/version']);
  });

  it('requires $schema, host.name and every entry member', () => {
    const catalog = edit(SEED_CATALOG as Json, (c) => {
      delete c['$schema'];
      c['host'] = {};
      c['aiCards'][0] = { id: 'did:web:orbit.example', cardUrl: 'card.json', updatedAt: '2026-02-10' };
    });
    expect(errorsOf(catalog)).toEqual([
      'FIELD_MISSING@/$schema',
      'FIELD_MISSING@/host/name',
      'FIELD_MISSING@/aiCards/0/name',
      'FIELD_MISSING@/aiCards/0/description',
      'URI_NOT_ABSOLUTE@/aiCards/0/cardUrl',
      'TIMESTAMP_INVALID@/aiCards/0/updatedAt',
    ]);
  });

  it('refuses the draft names and specVersion without compatibility mode', () => {
    expect(check(DRAFT_CATALOG)).toMatchObject({ kind: 'ai-catalog', form: 'seed', valid: false });
    expect(errorsOf(DRAFT_CATALOG)).toEqual([
      'CATALOG_DRAFT_FORM@/specVersion',
      'CATALOG_DRAFT_FORM@/agents',
      'FIELD_MISSING@/agents/0/updatedAt',
    ]);
  });

  it.each(['agents', 'services', 'records'])('accepts the draft array %s with warnings in compatibility mode', (name) => {
    const catalog = edit(DRAFT_CATALOG, (c) => {
      c[name] = c['agents'];
      if (name !== 'agents') delete c['agents'];
    });
    expect(check(catalog, { compatibility: true }).valid).toBe(true);
    expect(warningsOf(catalog, { compatibility: true })).toEqual([`CATALOG_DRAFT_FORM@/specVersion`, `CATALOG_DRAFT_FORM@/${name}`, `CATALOG_DRAFT_FORM@/${name}/0/updatedAt`]);
  });

  it('is chosen for kind ai-catalog when the document has the seed marks', () => {
    expect(check(SEED_CATALOG, { kind: 'ai-catalog' })).toMatchObject({ form: 'seed', valid: true });
  });
});
