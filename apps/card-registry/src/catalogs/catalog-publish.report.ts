/**
 * What a catalog publish answers (README.md "AI Catalogs", "Catalogs spanning namespaces"): each namespace's
 * outcome and each entry's, for a publish that went through and for one a concurrent change stopped after
 * earlier namespaces were stored (`CATALOG_PARTIALLY_STORED`). One report for both transports: REST sends
 * it as the body (or as members of the problem document), gRPC as `PublishCatalogResponse` (or in the
 * `registry-catalog-result-bin` trailer). Pure.
 */
import type { Refusal } from '../domain/registry-namespace.aggregate';
import type { ProblemIssue, ServiceFailure } from '../service/registry-service.result';
import type { SignatureView } from '../trust/signature.view';
import type { CatalogEntryRecord } from './catalog-publish.decision';
import type { PlannedEntry } from './catalog-publish.plan';

/** `stored`: this call appended to the namespace; `unchanged`: it held the catalog already; `refused`/`not_stored`: partial publishes only. */
export type CatalogNamespaceOutcome = 'stored' | 'unchanged' | 'validated' | 'refused' | 'not_stored';
/** `recorded`: a reference newly recorded in its namespace's catalog record; `refused`/`not_stored`: partial publishes only. */
export type CatalogEntryOutcome = 'created' | 'unchanged' | 'validated' | 'recorded' | 'refused' | 'not_stored';

export const CATALOG_PARTIALLY_STORED = 'CATALOG_PARTIALLY_STORED';

export interface PublishedCatalogEntry extends CatalogEntryRecord {
  namespace: string;
  /** True when this call stored the entry's revision (references: never, they are part of the record). */
  created: boolean;
  outcome: CatalogEntryOutcome;
  /** Why the entry was refused (`refused` only). */
  issues?: ProblemIssue[];
}

export interface PublishedCatalog {
  catalogId: string;
  form: string;
  created: boolean;
  dryRun: boolean;
  /** Every namespace touched, in the order they are stored, and where its record of this publish is read. */
  records: { namespace: string; href: string; outcome: CatalogNamespaceOutcome }[];
  entries: PublishedCatalogEntry[];
  signature?: SignatureView;
  warnings: ProblemIssue[];
}

/** How one namespace's append went: its outcome, whether its record was appended now, the revisions it stored. */
export interface NamespaceApplied {
  outcome: 'stored' | 'unchanged' | 'validated';
  recorded: boolean;
  created: ReadonlySet<string>;
}

/** The namespace a concurrent change refused after earlier ones were stored, and why. */
export interface NamespaceRefused {
  namespace: string;
  /** The decision's refusals (an entry each, or none for the namespace as a whole), or a race lost too often. */
  refusals: { entry: PlannedEntry | undefined; refusal: Refusal }[];
}

export interface CatalogReportInput {
  catalogId: string;
  form: string;
  dryRun: boolean;
  /** Every namespace touched, in append order. */
  namespaces: readonly string[];
  entries: readonly PlannedEntry[];
  recordOf: (entry: PlannedEntry) => CatalogEntryRecord;
  applied: ReadonlyMap<string, NamespaceApplied>;
  signature?: SignatureView;
  warnings: ProblemIssue[];
}

export const recordHref = (namespace: string, catalogId: string) => `/v1/namespaces/${encodeURIComponent(namespace)}/catalogs/${encodeURIComponent(catalogId)}`;
export const revisionKey = (entry: { identifier: string; revision?: string }) => `${entry.identifier}\u0000${entry.revision ?? ''}`;
export const identifierPointer = (entry: PlannedEntry) => `${entry.pointer}/${entry.pointer.startsWith('/entries') ? 'identifier' : 'id'}`;

/** The issues naming why `refused` was refused, one per entry (a namespace-wide refusal names each of its entries). */
function refusalIssues(refused: NamespaceRefused, entries: readonly PlannedEntry[]): Map<string, ProblemIssue[]> {
  const byPointer = new Map<string, ProblemIssue[]>();
  const add = (pointer: string, issue: ProblemIssue) => byPointer.set(pointer, [...(byPointer.get(pointer) ?? []), issue]);
  for (const { entry, refusal } of refused.refusals) {
    if (entry) {
      add(entry.pointer, { path: entry.pointer, code: refusal.code, severity: 'error', message: entry.reference ? refusal.message : `${entry.identifier} (${entry.revision}): ${refusal.message}` });
      continue;
    }
    for (const member of entries.filter((candidate) => candidate.namespace === refused.namespace)) {
      add(member.pointer, { path: identifierPointer(member), code: refusal.code, severity: 'error', message: `${member.identifier}: ${refusal.message}` });
    }
  }
  return byPointer;
}

/** The report of a publish; with `refused`, of one stopped at that namespace (later namespaces not attempted). */
export function reportCatalog(input: CatalogReportInput, refused?: NamespaceRefused): PublishedCatalog {
  const issues = refused ? refusalIssues(refused, input.entries) : new Map<string, ProblemIssue[]>();
  const namespaceOutcome = (namespace: string): CatalogNamespaceOutcome => {
    const applied = input.applied.get(namespace);
    if (applied) return applied.outcome;
    return refused?.namespace === namespace ? 'refused' : 'not_stored';
  };
  const created = new Set([...input.applied.values()].flatMap((applied) => [...applied.created]));
  const entryOutcome = (entry: PlannedEntry): CatalogEntryOutcome => {
    const applied = input.applied.get(entry.namespace);
    if (!applied) return issues.has(entry.pointer) ? 'refused' : 'not_stored';
    if (applied.outcome === 'validated') return 'validated';
    if (entry.reference) return applied.recorded ? 'recorded' : 'unchanged';
    return created.has(revisionKey(entry)) ? 'created' : 'unchanged';
  };
  return {
    catalogId: input.catalogId,
    form: input.form,
    created: [...input.applied.values()].some((applied) => applied.outcome === 'stored'),
    dryRun: input.dryRun,
    records: input.namespaces.map((namespace) => ({ namespace, href: recordHref(namespace, input.catalogId), outcome: namespaceOutcome(namespace) })),
    entries: input.entries.map((entry) => {
      const outcome = entryOutcome(entry);
      const found = issues.get(entry.pointer);
      return { namespace: entry.namespace, ...input.recordOf(entry), created: outcome === 'created', outcome, ...(found ? { issues: found } : {}) };
    }),
    ...(input.signature ? { signature: input.signature } : {}),
    warnings: input.warnings,
  };
}

/**
 * A publish a concurrent change stopped after earlier namespaces were stored: 409 / ABORTED with the
 * refused entries as issues and the whole report as members of the problem document.
 */
export function partiallyStored(report: PublishedCatalog, refused: NamespaceRefused): ServiceFailure {
  const stored = report.records.filter((record) => record.outcome === 'stored' || record.outcome === 'unchanged').map((record) => record.namespace);
  const notStored = report.records.filter((record) => record.outcome === 'not_stored').map((record) => record.namespace);
  const codes = [...new Set(refused.refusals.map(({ refusal }) => refusal.code))].join(', ');
  const detail =
    `Namespace ${refused.namespace} changed while this catalog was published and refused it (${codes}); ` +
    `stored: ${stored.join(', ')}; not stored: ${[refused.namespace, ...notStored].join(', ')}. ` +
    'Resolve the refusal and publish the same bytes again: the namespaces already stored answer unchanged';
  const issues = report.entries.flatMap((entry) => entry.issues ?? []);
  return { kind: 'conflict', code: CATALOG_PARTIALLY_STORED, detail, issues: [...issues, ...report.warnings], extra: { ...report } };
}

/** The report a `CATALOG_PARTIALLY_STORED` failure carries (for transports that send it their own way). */
export function partialReportOf(failure: ServiceFailure): PublishedCatalog | null {
  return failure.code === CATALOG_PARTIALLY_STORED && failure.extra ? (failure.extra as unknown as PublishedCatalog) : null;
}
