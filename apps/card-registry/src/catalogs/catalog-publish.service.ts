/**
 * Publishing AI Catalogs (CARDS.md §2.1 seed, §2.3 final, §3.4 signatures, §5 "Immutable versions") and
 * reading what a publish stored. `publish` validates the catalog whole (422, every issue), flattens it
 * (catalog-publish.plan.ts), checks that the caller holds every entry's namespace (403 naming each entry
 * outside them, before anything is verified or stored), verifies signatures under each namespace's policy
 * with the trust code the card route uses, decides every namespace (on its state as it is after that) and
 * only then appends each namespace's batch at once (catalog-publish.decision.ts), namespace after namespace.
 * A refusal known before appending stores nothing anywhere; one that a concurrent writer causes after
 * earlier namespaces were appended stops there and answers `CATALOG_PARTIALLY_STORED` with every
 * namespace's and entry's outcome (catalog-publish.report.ts). One path for REST and gRPC. Reads fold the
 * namespace stream (read-your-writes).
 *
 * Signatures (README.md "AI Catalogs"): the root `signature` (Catalog Profile: typ ai-catalog+jws,
 * host.identifier === signer) goes through the policy gate under the strictest policy of the namespaces
 * touched, and under `require` its signer must be `did:web:{namespace}` for each such namespace; inline
 * native cards and nested catalogs carrying their own signature are verified as a card would be (stored
 * with their revision); signed trust manifests are verified against their entry (§3.4.5) and recorded.
 */
import { createHash } from 'node:crypto';

import { verifyTrustManifest } from '@trustmesh/cards-signatures';
import type { Logger } from '@trustmesh/platform-logging';

import { canonicalNamespace } from '../domain/card-identifier';
import { PUBLISH_QUOTA_EXCEEDED, type DailyPublishQuota } from '../limits/publish-quota';
import { rateLimited } from '../limits/registry-limits';
import type { SignaturePolicy, SignatureRecord } from '../domain/namespace-trust';
import type { NamespaceState, Refusal } from '../domain/registry-namespace.aggregate';
import type { CardDocuments } from '../documents/card-documents.port';
import type { NamespaceRepository } from '../service/namespace.repository';
import type { RegistryCaller } from '../service/registry-callers';
import { fail, succeed, type ProblemIssue, type ServiceFailure, type ServiceResult } from '../service/registry-service.result';
import { carriesSignature } from '../trust/card-signature.verifier';
import type { PublishSignatureGate } from '../trust/signature-policy.gate';
import { signatureView, type SignatureView } from '../trust/signature.view';
import type { TrustNetwork } from '../trust/trust-network';
import { decideCatalog, type CatalogBatch, type CatalogDecision, type CatalogEntryRecord, type CatalogPublishedData, type ManifestOutcome } from './catalog-publish.decision';
import { planCatalog, type PlannedEntry } from './catalog-publish.plan';
import { identifierPointer, partiallyStored, recordHref, reportCatalog, type CatalogReportInput, type NamespaceApplied, type NamespaceRefused, type PublishedCatalog } from './catalog-publish.report';

export type { PublishedCatalog, PublishedCatalogEntry } from './catalog-publish.report';

const POLICY_RANK: Record<SignaturePolicy, number> = { off: 0, 'verify-if-present': 1, require: 2 };
const CATALOG_ID = /^sha256:[0-9a-f]{64}$/;
/** Failures of a manifest that are not the publisher's mistake right now: recorded unverified, with a warning. */
const MANIFEST_UNCHECKED = new Set(['SUBJECT_DIGEST_UNCHECKED', 'KEY_DOCUMENT_UNAVAILABLE']);
const LISTED_CATALOGS = 100;
/** Most signatures one publish verifies (entries' own and trust manifests): each may fetch a key document. */
export const MAX_CATALOG_SIGNATURES = 64;

export interface CatalogPublishServiceDeps {
  namespaces: NamespaceRepository;
  documents: CardDocuments;
  signatures: PublishSignatureGate;
  network: TrustNetwork;
  logger: Logger;
  now: () => Date;
  /** The cards' daily publish quota: a catalog spends one unit per revision it stores (checked before, spent after). */
  quota?: DailyPublishQuota;
}

export interface CatalogRecordView extends Omit<CatalogPublishedData, 'signature'> {
  signature?: SignatureView;
}

type Failed = { ok: false; failure: ServiceFailure };

const unprocessable = (code: string, detail: string, issues: ProblemIssue[], extra?: Record<string, unknown>): Failed => ({ ok: false, failure: { kind: 'unprocessable', code, detail, issues, ...(extra ? { extra } : {}) } });

export class CatalogPublishService {
  constructor(private readonly deps: CatalogPublishServiceDeps) {}

  async publish(caller: RegistryCaller, content: Buffer, query: { dryRun: boolean }): Promise<ServiceResult<PublishedCatalog>> {
    if (caller.kind !== 'publisher') return fail('forbidden', 'PUBLISHER_CREDENTIAL_REQUIRED', 'Publishing needs a publisher credential (tmrp_…)');
    const exhausted = query.dryRun ? null : await this.deps.quota?.exhausted(caller.publisherId);
    if (exhausted) return { ok: false, failure: rateLimited(exhausted, `Your publisher stored its ${this.deps.quota?.perDay} revisions for today (UTC); retry after ${exhausted.retryAfterSeconds} s`, PUBLISH_QUOTA_EXCEEDED) };
    const validation = this.deps.documents.validate(content, { kind: 'ai-catalog' });
    const warnings: ProblemIssue[] = validation.warnings.map((found) => ({ ...found }));
    if (!validation.valid || validation.kind !== 'ai-catalog') return unprocessable('DOCUMENT_INVALID', `The catalog has ${validation.errors.length} error(s)`, [...validation.errors, ...validation.warnings]);
    const catalog = validation.value as Record<string, unknown>;
    const form = validation.form ?? 'final';
    const plan = planCatalog(catalog, form, this.deps.documents);
    if (!plan.ok) return unprocessable(plan.code, plan.detail, [...plan.issues, ...warnings]);
    if (plan.entries.length === 0) return unprocessable('CATALOG_EMPTY', 'The catalog has no entries to publish', [{ path: form === 'seed' ? '/aiCards' : '/entries', code: 'CATALOG_EMPTY', severity: 'error', message: 'Add at least one entry' }]);

    const states = new Map<string, NamespaceState>();
    for (const namespace of new Set(plan.entries.map((entry) => entry.namespace))) states.set(namespace, (await this.deps.namespaces.load(namespace)).state);
    const outside = plan.entries.filter((entry) => states.get(entry.namespace)?.publisherId !== caller.publisherId);
    if (outside.length > 0) {
      const issues = outside.map((entry): ProblemIssue => ({ path: identifierPointer(entry), code: 'NAMESPACE_NOT_GRANTED', severity: 'error', message: `${entry.identifier} is in namespace ${entry.namespace}, which is not granted to your publisher` }));
      return { ok: false, failure: { kind: 'forbidden', code: 'NAMESPACE_NOT_GRANTED', detail: `${outside.length} entr${outside.length === 1 ? 'y is' : 'ies are'} outside your namespaces; nothing was stored`, issues } };
    }

    const checked = await this.checkSignatures(catalog, plan.entries, states, warnings);
    if (!checked.ok) return checked;
    const catalogId = `sha256:${createHash('sha256').update(content).digest('hex')}`;
    const host = hostOf(catalog, form);
    const now = this.deps.now().toISOString();
    const batches = new Map<string, CatalogBatch>();
    for (const namespace of states.keys()) {
      const entries = plan.entries.filter((entry) => entry.namespace === namespace);
      const records = entries.map((entry) => recordOf(entry, checked.manifests.get(entry.pointer)));
      batches.set(namespace, { catalogId, form, ...(host ? { host } : {}), entries, records, signatures: checked.signatures, ...(checked.signature ? { signature: checked.signature } : {}), publisherId: caller.publisherId, now });
    }

    // Every namespace decided, on its state as it is now (verifying signatures may have taken a while),
    // before any is appended: a refusal anywhere stores nothing anywhere.
    for (const namespace of states.keys()) states.set(namespace, (await this.deps.namespaces.load(namespace)).state);
    const decided = [...batches].map(([namespace, batch]) => decideCatalog(batch, states.get(namespace) as NamespaceState));
    const refused = refusalOf(decided, warnings);
    if (refused) return refused;

    const applied = new Map<string, NamespaceApplied>();
    const report: CatalogReportInput = {
      catalogId,
      form,
      dryRun: query.dryRun,
      namespaces: [...batches.keys()],
      entries: plan.entries,
      recordOf: (entry) => recordOf(entry, checked.manifests.get(entry.pointer)),
      applied,
      ...(checked.signature ? { signature: signatureView(checked.signature) } : {}),
      warnings,
    };
    if (query.dryRun) {
      for (const namespace of batches.keys()) applied.set(namespace, { outcome: 'validated', recorded: false, created: new Set() });
      return succeed(reportCatalog(report));
    }
    // Appended namespace after namespace (one stream each). Only a writer racing in since the decision
    // above can refuse one now; earlier namespaces then stand, and the answer says exactly what was stored.
    for (const [namespace, batch] of batches) {
      const outcome = await this.appendNamespace(namespace, batch);
      if ('refusals' in outcome) {
        const stopped: NamespaceRefused = { namespace, refusals: outcome.refusals };
        const stored = [...applied].filter(([, done]) => done.outcome === 'stored').map(([name]) => name);
        if (stored.length === 0) return refusalOf([{ ok: false, refusals: stopped.refusals }], warnings) as Failed;
        this.deps.logger.log('warn', 'catalog partially stored', { catalogId, publisherId: caller.publisherId, storedNamespaces: stored.length, refusedNamespace: namespace, code: outcome.refusals[0]?.refusal.code });
        return { ok: false, failure: partiallyStored(reportCatalog(report, stopped), stopped) };
      }
      applied.set(namespace, outcome);
      await this.deps.quota?.spend(caller.publisherId, outcome.created.size);
    }
    const published = reportCatalog(report);
    if (published.created) this.deps.logger.log('info', 'catalog published', { catalogId, namespaces: batches.size, entries: plan.entries.length, publisherId: caller.publisherId });
    return succeed(published);
  }

  /** Appends one namespace's batch, re-deciding on a concurrent change; its refusals when it no longer holds. */
  private async appendNamespace(namespace: string, batch: CatalogBatch): Promise<NamespaceApplied | Pick<NamespaceRefused, 'refusals'>> {
    let outcome: CatalogDecision | undefined;
    const appended = await this.deps.namespaces.execute(namespace, (state) => {
      outcome = decideCatalog(batch, state);
      return outcome.ok ? { ok: true, events: outcome.events } : { ok: false, refusal: (outcome.refusals[0] as { refusal: Refusal }).refusal };
    });
    if (!appended.decision || !outcome) {
      const message = `Namespace ${namespace} kept changing while this catalog was published (retry)`;
      return { refusals: [{ entry: undefined, refusal: { kind: 'conflict', code: 'NAMESPACE_CHANGED', message, path: '' } }] };
    }
    if (!outcome.ok) return { refusals: outcome.refusals };
    return { outcome: appended.changed ? 'stored' : 'unchanged', recorded: outcome.events.some((event) => event.type === 'CatalogPublished'), created: outcome.created };
  }

  /** The catalog publishes recorded in `namespace`, oldest first (the last 100). */
  async list(namespaceText: string): Promise<ServiceResult<{ namespace: string; catalogs: { catalogId: string; form: string; publishedAt: string; entries: number; href: string }[] }>> {
    const namespace = canonicalNamespace(namespaceText);
    if (namespace === null) return fail('invalid', 'NAMESPACE_INVALID', 'Name the namespace as a canonical domain (lowercase A-labels)', '/namespace');
    const { state } = await this.deps.namespaces.load(namespace);
    if (state.publisherId === null) return fail('not_found', 'NAMESPACE_NOT_FOUND', 'No publisher holds this namespace', '/namespace');
    const catalogs = [...(state.catalogs?.values() ?? [])].slice(-LISTED_CATALOGS);
    return succeed({ namespace, catalogs: catalogs.map((record) => ({ catalogId: record.catalogId, form: record.form, publishedAt: record.publishedAt, entries: record.entries.length, href: recordHref(namespace, record.catalogId) })) });
  }

  /** What one catalog publish stored in `namespace`: entries (revisions and references), parents, signatures. */
  async record(namespaceText: string, catalogId: string): Promise<ServiceResult<CatalogRecordView>> {
    const namespace = canonicalNamespace(namespaceText);
    if (namespace === null) return fail('invalid', 'NAMESPACE_INVALID', 'Name the namespace as a canonical domain (lowercase A-labels)', '/namespace');
    if (!CATALOG_ID.test(catalogId)) return fail('invalid', 'CATALOG_ID_INVALID', 'A catalog id is sha256: and 64 lowercase hex digits (the digest of the published bytes)', '/catalogId');
    const { state } = await this.deps.namespaces.load(namespace);
    const found = state.catalogs?.get(catalogId);
    if (!found) return fail('not_found', 'CATALOG_NOT_FOUND', 'This namespace has no catalog publish with this id', '/catalogId');
    const { signature, ...rest } = found;
    return succeed({ ...rest, ...(signature ? { signature: signatureView(signature) } : {}) });
  }

  private async checkSignatures(
    catalog: Record<string, unknown>,
    entries: PlannedEntry[],
    states: ReadonlyMap<string, NamespaceState>,
    warnings: ProblemIssue[],
  ): Promise<Failed | { ok: true; signature?: SignatureRecord; signatures: Map<string, SignatureRecord>; manifests: Map<string, ManifestOutcome[]> }> {
    const policyOf = (namespace: string): SignaturePolicy => states.get(namespace)?.trust.signaturePolicy ?? 'verify-if-present';
    const namespaces = [...states.keys()];
    const strictest = namespaces.reduce((best, next) => (POLICY_RANK[policyOf(next)] > POLICY_RANK[policyOf(best)] ? next : best), namespaces[0] as string);
    const root = await this.deps.signatures.check({ kind: 'ai-catalog', document: catalog, namespace: strictest }, policyOf(strictest));
    if (!root.ok) return root;
    warnings.push(...root.warnings);
    const signer = root.signature?.signer;
    for (const namespace of namespaces.filter((candidate) => policyOf(candidate) === 'require')) {
      if (root.signature?.verified && signer === `did:web:${namespace}`) continue;
      const message = `Namespace ${namespace} requires its entries signed by did:web:${namespace}; this catalog is signed by ${signer ?? 'nobody'}`;
      return unprocessable('SIGNATURE_INVALID', message, [{ path: '/signature/signer', code: 'CATALOG_SIGNER_NOT_NAMESPACE', severity: 'error', message }], { signatureCode: 'CATALOG_SIGNER_NOT_NAMESPACE' });
    }

    const signed = entries.reduce((count, entry) => {
      if (policyOf(entry.namespace) === 'off') return count;
      const own = !entry.reference && carriesSignature({ kind: entry.kind, document: entry.document, namespace: entry.namespace }) ? 1 : 0;
      const list = Array.isArray(entry.entry['trustManifests']) ? entry.entry['trustManifests'] : [];
      return count + own + list.filter((manifest) => typeof manifest === 'object' && manifest !== null && 'signature' in manifest).length;
    }, 0);
    if (signed > MAX_CATALOG_SIGNATURES) {
      const message = `The entries carry ${signed} signatures; one publish verifies at most ${MAX_CATALOG_SIGNATURES}: split the catalog`;
      return unprocessable('CATALOG_TOO_MANY_SIGNATURES', message, [{ path: '/entries', code: 'CATALOG_TOO_MANY_SIGNATURES', severity: 'error', message }]);
    }

    const signatures = new Map<string, SignatureRecord>();
    const manifests = new Map<string, ManifestOutcome[]>();
    const { resolver } = this.deps.network.recordingResolver();
    const now = this.deps.now();
    for (const entry of entries) {
      const policy = policyOf(entry.namespace);
      if (policy === 'off') continue;
      if (!entry.reference && entry.kind !== 'artifact' && entry.kind !== 'mcp-server') {
        // The entry's own signature: verified as the card route would (require is met by the catalog's).
        const own = await this.deps.signatures.check({ kind: entry.kind, document: entry.document, namespace: entry.namespace }, 'verify-if-present');
        if (!own.ok) return { ok: false, failure: { ...own.failure, issues: own.failure.issues.map((found) => ({ ...found, path: `${entry.pointer}/data${found.path}` })) } };
        warnings.push(...own.warnings.map((found) => ({ ...found, path: `${entry.pointer}/data${found.path}` })));
        if (own.signature) signatures.set(entry.pointer, own.signature);
      }
      const list = Array.isArray(entry.entry['trustManifests']) ? entry.entry['trustManifests'] : [];
      const outcomes: ManifestOutcome[] = [];
      for (const [index, manifest] of list.entries()) {
        if (typeof manifest !== 'object' || manifest === null || !('signature' in manifest)) continue;
        const pointer = `${entry.pointer}/trustManifests/${index}`;
        const result = await verifyTrustManifest(manifest, { resolver, entry: entry.entry, pointer, now });
        const contributor = String((manifest as Record<string, unknown>)['contributor'] ?? '');
        if (result.verified) {
          outcomes.push({ pointer, contributor, verified: true, publisherAuthority: result.publisherAuthority });
          continue;
        }
        const unchecked = MANIFEST_UNCHECKED.has(result.code) && !(policy === 'require' && result.code === 'KEY_DOCUMENT_UNAVAILABLE');
        const found: ProblemIssue = { path: result.pointer, code: result.code, severity: unchecked ? 'warning' : 'error', message: result.message };
        if (!unchecked) return unprocessable('SIGNATURE_INVALID', `A trust manifest's signature does not verify (${result.code})`, [found, ...warnings], { signatureCode: result.code });
        warnings.push(found);
        outcomes.push({ pointer, contributor, verified: false, code: result.code });
      }
      if (outcomes.length > 0) manifests.set(entry.pointer, outcomes);
    }
    return { ok: true, ...(root.signature ? { signature: root.signature } : {}), signatures, manifests };
  }
}

function hostOf(catalog: Record<string, unknown>, form: string): CatalogPublishedData['host'] | undefined {
  const host = catalog['host'];
  if (typeof host !== 'object' || host === null) return undefined;
  const fields = host as Record<string, unknown>;
  const identifier = fields[form === 'seed' ? 'id' : 'identifier'];
  const displayName = fields[form === 'seed' ? 'name' : 'displayName'];
  return { ...(typeof identifier === 'string' ? { identifier } : {}), ...(typeof displayName === 'string' ? { displayName } : {}) };
}

function recordOf(entry: PlannedEntry, manifests: ManifestOutcome[] | undefined): CatalogEntryRecord {
  const common = { pointer: entry.pointer, identifier: entry.identifier, ...(entry.parent !== undefined ? { parent: entry.parent } : {}), ...(manifests ? { manifests } : {}) };
  if (!entry.reference) return { ...common, reference: false, kind: entry.kind, revision: entry.revision, digest: entry.digest };
  return {
    ...common,
    reference: true,
    ...(entry.type !== undefined ? { type: entry.type } : {}),
    url: entry.url,
    ...(entry.digest !== undefined ? { digest: entry.digest } : {}),
    ...(entry.version !== undefined ? { version: entry.version } : {}),
    ...(entry.updatedAt !== undefined ? { updatedAt: entry.updatedAt } : {}),
  };
}

/** Every entry refused in any namespace, each named by its pointer, under the first refusal's status and code. */
function refusalOf(decisions: CatalogDecision[], warnings: ProblemIssue[]): Failed | null {
  const refusals = decisions.flatMap((decision) => (decision.ok ? [] : decision.refusals));
  const first = refusals[0];
  if (!first) return null;
  const issues = refusals.map(({ entry, refusal }): ProblemIssue => ({
    path: entry ? entry.pointer : refusal.path,
    code: refusal.code,
    severity: 'error',
    message: entry && !entry.reference ? `${entry.identifier} (${entry.revision}): ${refusal.message}` : refusal.message,
  }));
  const named = refusals.flatMap(({ entry }) => (entry ? [entry.identifier] : []));
  const detail = named.length > 0 ? `Refused for ${named.join(', ')}; nothing was stored` : `${first.refusal.message}; nothing was stored`;
  return { ok: false, failure: { kind: first.refusal.kind, code: first.refusal.code, detail, issues: [...issues, ...warnings] } };
}
