/**
 * A catalog publish on one namespace stream (CARDS.md §2.3, §5 "Immutable versions"): every entry of the
 * namespace decided as a `PublishRevision` on the same state, and the whole batch appended at once with a
 * `CatalogPublished` record (entries, references, parent pointers, the catalog's signature outcome), so a
 * namespace gets all of a catalog's entries or none. Same catalog bytes again: nothing appended. Pure.
 */
import type { SignatureRecord } from '../domain/namespace-trust';
import { decide, type NamespaceEvent, type NamespaceState, type Refusal } from '../domain/registry-namespace.aggregate';
import type { PlannedEntry } from './catalog-publish.plan';

/** How a signed trust manifest of an entry verified (§3.4): attribution, not authority, unless `publisherAuthority`. */
export interface ManifestOutcome {
  pointer: string;
  contributor: string;
  verified: boolean;
  code?: string;
  publisherAuthority?: boolean;
}

export interface CatalogEntryRecord {
  pointer: string;
  identifier: string;
  parent?: string;
  /** Card revisions: the kind and revision key stored; references: their media type (seed: none) and url. */
  reference: boolean;
  kind?: string;
  revision?: string;
  type?: string;
  url?: string;
  digest?: string;
  version?: string;
  updatedAt?: string;
  manifests?: ManifestOutcome[];
}

export interface CatalogPublishedData {
  namespace: string;
  /** `sha256:<hex>` of the exact catalog bytes: the publish's id. */
  catalogId: string;
  form: string;
  host?: { identifier?: string; displayName?: string };
  /** This namespace's entries, in catalog order (nested entries after their parent). */
  entries: CatalogEntryRecord[];
  signature?: SignatureRecord;
  publisherId: string;
  publishedAt: string;
}

export interface CatalogPublishedEvent {
  type: 'CatalogPublished';
  data: CatalogPublishedData;
}

export const CATALOG_EVENT_TYPES = ['CatalogPublished'] as const;

/** Folds a catalog publish into the namespace (in place, as every event is: namespace.repository.ts). */
export function evolveCatalog(state: NamespaceState, data: CatalogPublishedData): void {
  state.catalogs ??= new Map();
  state.catalogs.set(data.catalogId, data);
}

export interface CatalogBatch {
  catalogId: string;
  form: string;
  host?: CatalogPublishedData['host'];
  entries: PlannedEntry[];
  records: CatalogEntryRecord[];
  signatures: ReadonlyMap<string, SignatureRecord>;
  signature?: SignatureRecord;
  publisherId: string;
  now: string;
}

export type CatalogDecision = { ok: true; events: NamespaceEvent[]; created: ReadonlySet<string> } | { ok: false; refusals: { entry: PlannedEntry | undefined; refusal: Refusal }[] };

/** Decides every entry of `batch` (all of one namespace) on `state`; every refusal, each naming its entry. */
export function decideCatalog(batch: CatalogBatch, state: NamespaceState): CatalogDecision {
  if (state.publisherId !== batch.publisherId) {
    return { ok: false, refusals: [{ entry: undefined, refusal: { kind: 'forbidden', code: 'NAMESPACE_NOT_GRANTED', message: `Namespace ${state.namespace} is not granted to your publisher`, path: '' } }] };
  }
  const events: NamespaceEvent[] = [];
  const created = new Set<string>();
  const refusals: { entry: PlannedEntry; refusal: Refusal }[] = [];
  for (const entry of batch.entries) {
    if (entry.reference) continue;
    const key = `${entry.identifier}\u0000${entry.revision}`;
    // The same artifact repeated at another nesting level (same bytes, checked by the plan) is stored once.
    if (created.has(key)) continue;
    const signature = batch.signatures.get(entry.pointer);
    const decision = decide(
      {
        type: 'PublishRevision',
        publisherId: batch.publisherId,
        identifier: entry.identifier,
        kind: entry.kind,
        revision: entry.revision,
        ...(entry.updatedAtMs !== undefined ? { updatedAtMs: entry.updatedAtMs } : {}),
        digest: entry.digest,
        contentType: entry.contentType,
        content: entry.content.toString('base64'),
        size: entry.content.length,
        summary: entry.summary,
        status: entry.status,
        ...(signature ? { signature } : {}),
        now: batch.now,
      },
      state,
    );
    if (!decision.ok) {
      refusals.push({ entry, refusal: decision.refusal });
      continue;
    }
    for (const event of decision.events) {
      if (event.type !== 'CardRevisionPublished') continue;
      created.add(key);
      events.push({ type: 'CardRevisionPublished', data: { ...event.data, catalog: { id: batch.catalogId, pointer: entry.pointer, ...(entry.parent !== undefined ? { parent: entry.parent } : {}) } } });
    }
  }
  if (refusals.length > 0) return { ok: false, refusals };
  if (!state.catalogs?.has(batch.catalogId)) {
    events.push({
      type: 'CatalogPublished',
      data: {
        namespace: state.namespace,
        catalogId: batch.catalogId,
        form: batch.form,
        ...(batch.host ? { host: batch.host } : {}),
        entries: batch.records,
        ...(batch.signature ? { signature: batch.signature } : {}),
        publisherId: batch.publisherId,
        publishedAt: batch.now,
      },
    });
  }
  return { ok: true, events, created };
}
