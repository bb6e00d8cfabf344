import { A2A_TYPE as A2A, a2aAgent as agent } from '../../test/support/catalog-documents';
import { cardsDocuments } from '../documents/cards-documents.adapter';
import { planCatalog, type PlannedEntry } from './catalog-publish.plan';
import { CATALOG_PARTIALLY_STORED, partiallyStored, partialReportOf, reportCatalog, revisionKey, type CatalogReportInput, type NamespaceApplied } from './catalog-publish.report';

const documents = cardsDocuments(1 << 20);
const CATALOG_ID = `sha256:${'c'.repeat(64)}`;

/** One inline card and one reference in each of a.example, b.example and c.example, in that order. */
function entries(): PlannedEntry[] {
  const catalog = {
    specVersion: '1.0',
    entries: ['a.example', 'b.example', 'c.example'].flatMap((domain) => [
      { identifier: `urn:air:${domain}:agent:x`, type: A2A, data: agent(domain, 'x') },
      { identifier: `urn:air:${domain}:skills:s`, type: 'application/agent-skills+zip', url: `https://${domain}/s.zip` },
    ]),
  };
  const plan = planCatalog(catalog, 'final', documents);
  if (!plan.ok) throw new Error(plan.code);
  return plan.entries;
}

function input(applied: Array<[string, NamespaceApplied]>, dryRun = false): CatalogReportInput {
  const planned = entries();
  return {
    catalogId: CATALOG_ID,
    form: 'final',
    dryRun,
    namespaces: ['a.example', 'b.example', 'c.example'],
    entries: planned,
    recordOf: (entry) => (entry.reference ? { pointer: entry.pointer, identifier: entry.identifier, reference: true, url: entry.url } : { pointer: entry.pointer, identifier: entry.identifier, reference: false, kind: entry.kind, revision: entry.revision, digest: entry.digest }),
    applied: new Map(applied),
    warnings: [],
  };
}

const stored = (key: string): NamespaceApplied => ({ outcome: 'stored', recorded: true, created: new Set([key]) });
const outcomes = (report: ReturnType<typeof reportCatalog>) => report.entries.map((entry) => `${entry.namespace} ${entry.reference ? 'ref' : 'card'} ${entry.outcome}`);

describe('reportCatalog', () => {
  it('given every namespace appended or already holding the catalog, names each entry created, unchanged or recorded', () => {
    const report = reportCatalog(input([
      ['a.example', stored(revisionKey({ identifier: 'urn:air:a.example:agent:x', revision: '1.0.0' }))],
      ['b.example', { outcome: 'unchanged', recorded: false, created: new Set() }],
      ['c.example', { outcome: 'stored', recorded: true, created: new Set() }],
    ]));
    expect(report.created).toBe(true);
    expect(report.records.map((record) => record.outcome)).toEqual(['stored', 'unchanged', 'stored']);
    expect(outcomes(report)).toEqual(['a.example card created', 'a.example ref recorded', 'b.example card unchanged', 'b.example ref unchanged', 'c.example card unchanged', 'c.example ref recorded']);
    expect(report.entries.filter((entry) => entry.created)).toHaveLength(1);
  });

  it('given a dry run, names every namespace and entry validated and nothing created', () => {
    const validated: NamespaceApplied = { outcome: 'validated', recorded: false, created: new Set() };
    const report = reportCatalog(input([['a.example', validated], ['b.example', validated], ['c.example', validated]], true));
    expect(report.created).toBe(false);
    expect(new Set(report.records.map((record) => record.outcome))).toEqual(new Set(['validated']));
    expect(new Set(report.entries.map((entry) => entry.outcome))).toEqual(new Set(['validated']));
  });

  it('given a namespace refused as a whole after the first was stored, refuses each of its entries at its identifier and leaves the rest not stored', () => {
    const given = input([['a.example', stored(revisionKey({ identifier: 'urn:air:a.example:agent:x', revision: '1.0.0' }))]]);
    const refused = { namespace: 'b.example', refusals: [{ entry: undefined, refusal: { kind: 'forbidden' as const, code: 'NAMESPACE_NOT_GRANTED', message: 'Namespace b.example is not granted to your publisher', path: '' } }] };
    const report = reportCatalog(given, refused);
    expect(report.records.map((record) => `${record.namespace} ${record.outcome}`)).toEqual(['a.example stored', 'b.example refused', 'c.example not_stored']);
    expect(outcomes(report)).toEqual(['a.example card created', 'a.example ref recorded', 'b.example card refused', 'b.example ref refused', 'c.example card not_stored', 'c.example ref not_stored']);
    expect(report.entries[2]?.issues).toEqual([expect.objectContaining({ path: '/entries/2/identifier', code: 'NAMESPACE_NOT_GRANTED', severity: 'error' })]);

    const failure = partiallyStored(report, refused);
    expect(failure).toMatchObject({ kind: 'conflict', code: CATALOG_PARTIALLY_STORED, issues: [{ path: '/entries/2/identifier' }, { path: '/entries/3/identifier' }] });
    expect(failure.detail).toContain('stored: a.example; not stored: b.example, c.example');
    expect(partialReportOf(failure)).toEqual(report);
  });

  it('given one entry refused, refuses only that entry and leaves its neighbours in the namespace not stored', () => {
    const planned = entries();
    const conflicting = planned.find((entry) => entry.identifier === 'urn:air:b.example:agent:x');
    const refused = { namespace: 'b.example', refusals: [{ entry: conflicting, refusal: { kind: 'conflict' as const, code: 'REVISION_CONFLICT', message: 'Revision 1.0.0 was published with other bytes', path: '/revision' } }] };
    const report = reportCatalog(input([['a.example', stored('none')]]), refused);
    expect(outcomes(report).slice(2, 4)).toEqual(['b.example card refused', 'b.example ref not_stored']);
    expect(report.entries[2]?.issues).toEqual([expect.objectContaining({ path: '/entries/2', code: 'REVISION_CONFLICT' })]);
    expect(partialReportOf({ kind: 'conflict', code: 'REVISION_CONFLICT', detail: '', issues: [] })).toBeNull();
  });
});
