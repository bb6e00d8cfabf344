import { createHash } from 'node:crypto';

import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { emptyNamespace, evolve, type NamespaceState } from '../domain/registry-namespace.aggregate';
import { cardsDocuments } from '../documents/cards-documents.adapter';
import { decideCatalog, type CatalogBatch } from './catalog-publish.decision';
import { MAX_CATALOG_ENTRIES, planCatalog, type PlannedEntry, type PlannedRevision } from './catalog-publish.plan';

const documents = cardsDocuments(1 << 20);
const A2A = 'application/a2a-agent-card+json';
const agent = (name: string, version = '1.0.0') => ({
  name,
  description: `The ${name} agent`,
  url: `https://acme.example/a2a/${name}`,
  version,
  protocolVersion: '0.3.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: name, name, description: 'Does it', tags: ['t'] }],
});
const aiCard = { $schema: 'https://schemas.example.org/ai-card/v1.json', specVersion: '1.0', id: 'did:web:acme.example', name: 'Helper', description: 'Helps', publisher: { id: 'did:web:acme.example', name: 'Acme' }, services: { a2a: { type: 'a2a', name: 'A2A', protocolSpecific: {} } }, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-02-01T00:00:00Z' };
const revisions = (entries: PlannedEntry[]) => entries.filter((entry): entry is PlannedRevision => !entry.reference);

function planned(catalog: Record<string, unknown>, form = 'final'): PlannedEntry[] {
  const plan = planCatalog(catalog, form, documents);
  if (!plan.ok) throw new Error(`${plan.code}: ${JSON.stringify(plan.issues)}`);
  return plan.entries;
}

describe('planCatalog', () => {
  it('stores inline data as its UTF-8 JCS bytes under the digest of those bytes, keyed by version, else the native key, else updatedAt, else the digest', () => {
    const entries = planned({
      specVersion: '1.0',
      entries: [
        { identifier: 'urn:air:acme.example:agent:a', type: A2A, data: { ...agent('a', '3.1.0'), name: 'ä', skills: agent('a').skills } },
        { identifier: 'urn:air:acme.example:card:c', type: 'application/json', data: aiCard },
        { identifier: 'urn:air:acme.example:skills:s', type: 'application/agent-skills+json', updatedAt: '2026-03-01T00:00:00Z', data: { skills: ['x'] } },
        { identifier: 'urn:air:acme.example:skills:t', type: 'application/agent-skills+json', data: { skills: ['y'] } },
      ],
    });
    const [a2a, card, dated, bare] = revisions(entries);
    const jcs = canonicalJson({ ...agent('a', '3.1.0'), name: 'ä', skills: agent('a').skills });
    expect(a2a?.content.toString('utf8')).toBe(jcs);
    expect(a2a).toMatchObject({ kind: 'a2a', revision: '3.1.0', digest: `sha256:${createHash('sha256').update(jcs, 'utf8').digest('hex')}`, contentType: A2A, namespace: 'acme.example' });
    expect(card).toMatchObject({ kind: 'ai-card', revision: '2026-02-01T00:00:00Z', updatedAtMs: Date.parse('2026-02-01T00:00:00Z') });
    expect(dated).toMatchObject({ kind: 'artifact', revision: '2026-03-01T00:00:00Z', contentType: 'application/agent-skills+json' });
    expect(bare?.revision).toBe(bare?.digest);
  });

  it('flattens nested catalogs with pointers and the parent entry, and keeps url entries as references', () => {
    const entries = planned({
      specVersion: '1.0',
      entries: [
        { identifier: 'urn:air:acme.example:bundle:b', type: 'application/ai-catalog+json', data: { specVersion: '1.0', entries: [{ identifier: 'urn:air:globex.example:agent:g', type: A2A, url: 'https://globex.example/card.json', version: '2.0.0' }] } },
      ],
    });
    expect(entries).toEqual([
      expect.objectContaining({ reference: false, identifier: 'urn:air:acme.example:bundle:b', kind: 'ai-catalog', pointer: '/entries/0' }),
      expect.objectContaining({ reference: true, identifier: 'urn:air:globex.example:agent:g', namespace: 'globex.example', parent: 'urn:air:acme.example:bundle:b', pointer: '/entries/0/data/entries/0', url: 'https://globex.example/card.json', version: '2.0.0' }),
    ]);
  });

  it('refuses a digest that is not of the JCS form, a version other than the card\'s, and one identifier and revision with two contents', () => {
    const plan = planCatalog(
      {
        specVersion: '1.0',
        entries: [
          { identifier: 'urn:air:acme.example:agent:a', type: A2A, digest: `sha256:${'1'.repeat(64)}`, data: agent('a') },
          { identifier: 'urn:air:acme.example:agent:b', type: A2A, version: '9.9.9', data: agent('b') },
          { identifier: 'urn:air:acme.example:agent:c', type: A2A, data: agent('c') },
          { identifier: 'urn:air:acme.example:bundle:n', type: 'application/ai-catalog+json', data: { specVersion: '1.0', entries: [{ identifier: 'urn:air:acme.example:agent:c', type: A2A, data: { ...agent('c'), description: 'other' } }] } },
        ],
      },
      'final',
      documents,
    );
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.issues.map((issue) => [issue.path, issue.code])).toEqual([
      ['/entries/0/digest', 'ENTRY_DIGEST_MISMATCH'],
      ['/entries/1/version', 'ENTRY_VERSION_MISMATCH'],
      ['/entries/3/data/entries/0', 'CATALOG_ENTRY_CONFLICT'],
    ]);
  });

  it('bounds the entries of one publish', () => {
    const entries = Array.from({ length: MAX_CATALOG_ENTRIES + 1 }, (_, index) => ({ identifier: `urn:air:acme.example:x:${index}`, type: 'text/plain', url: `https://acme.example/${index}` }));
    expect(planCatalog({ specVersion: '1.0', entries }, 'final', documents)).toMatchObject({ ok: false, code: 'CATALOG_TOO_MANY_ENTRIES' });
  });
});

describe('decideCatalog', () => {
  const held = (): NamespaceState => ({ ...emptyNamespace('acme.example'), publisherId: 'acme' });
  const batchOf = (entries: PlannedEntry[]): CatalogBatch => ({ catalogId: `sha256:${'c'.repeat(64)}`, form: 'final', entries, records: [], signatures: new Map(), publisherId: 'acme', now: '2026-06-01T00:00:00.000Z' });

  it('appends every revision and the record once; the same batch on the resulting state appends nothing; a repeated artifact is stored once', () => {
    const entries = planned({
      specVersion: '1.0',
      entries: [
        { identifier: 'urn:air:acme.example:agent:a', type: A2A, data: agent('a') },
        { identifier: 'urn:air:acme.example:bundle:n', type: 'application/ai-catalog+json', data: { specVersion: '1.0', entries: [{ identifier: 'urn:air:acme.example:agent:a', type: A2A, data: agent('a') }] } },
      ],
    });
    const state = held();
    const first = decideCatalog(batchOf(entries), state);
    expect(first.ok && first.events.map((event) => event.type)).toEqual(['CardRevisionPublished', 'CardRevisionPublished', 'CatalogPublished']);
    if (!first.ok) return;
    first.events.forEach((event, index) => evolve(state, event, index + 1));
    expect(state.cards.get('urn:air:acme.example:agent:a')?.revisions[0]?.catalog).toEqual({ id: `sha256:${'c'.repeat(64)}`, pointer: '/entries/0' });
    expect(decideCatalog(batchOf(entries), state)).toMatchObject({ ok: true, events: [] });
  });

  it('refuses every entry whose revision holds other bytes, and a namespace the caller does not hold', () => {
    const state = held();
    const original = decideCatalog(batchOf(planned({ specVersion: '1.0', entries: [{ identifier: 'urn:air:acme.example:agent:a', type: A2A, data: agent('a') }] })), state);
    if (original.ok) original.events.forEach((event, index) => evolve(state, event, index + 1));
    const changed = planned({ specVersion: '1.0', entries: [{ identifier: 'urn:air:acme.example:agent:a', type: A2A, data: { ...agent('a'), description: 'changed' } }] });
    expect(decideCatalog(batchOf(changed), state)).toMatchObject({ ok: false, refusals: [{ entry: { pointer: '/entries/0' }, refusal: { code: 'REVISION_CONFLICT' } }] });
    expect(decideCatalog({ ...batchOf(changed), publisherId: 'globex' }, state)).toMatchObject({ ok: false, refusals: [{ refusal: { code: 'NAMESPACE_NOT_GRANTED' } }] });
  });
});
