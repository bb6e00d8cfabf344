/**
 * The publisher's side of the registry and its public reads (CARDS.md §1.2, §5): publish a document (or
 * check it with `dryRun`), change the status of one revision or all, rename a card, read the latest
 * revision, the list of revisions and the exact bytes of one.
 *
 * A revision is (identifier, key) with the SHA-256 of the RAW bytes: the key is `updatedAt` for an AI Card
 * (strictly increasing) and `version` for A2A and MCP. Same bytes again: 200, nothing appended; different
 * bytes for a published key: 409 REVISION_CONFLICT. Reads fold the namespace stream (read-your-writes).
 */
import { createHash } from 'node:crypto';

import type { EventStore } from '@trustmesh/platform-event-store';
import type { Logger } from '@trustmesh/platform-logging';

import { MAX_IDENTIFIER_LENGTH, namespaceOf } from '../domain/card-identifier';
import { CARD_STATUSES, type CardStatus } from '@trustmesh/cards-registry-events';
import { isRevisionVerified, type LookalikeFlag, type SignatureRecord } from '../domain/namespace-trust';
import { decide, latestOf, type CardState, type NamespaceCommand, type NamespaceEvent, type NamespaceState, type RevisionState } from '../domain/registry-namespace.aggregate';
import { PUBLISHABLE_KINDS, type CardDocuments, type DocumentIssue } from '../documents/card-documents.port';
import { namespaceStreamId } from '../persistence/registry.stream';
import type { PublishSignatureGate } from '../trust/signature-policy.gate';
import { signatureView, type SignatureView } from '../trust/signature.view';
import type { NamespaceRepository } from './namespace.repository';
import type { RegistryCaller } from './registry-callers';
import { fail, fromRefusal, succeed, type ProblemIssue, type ServiceFailure, type ServiceResult } from './registry-service.result';
import { readFields } from './request-fields';

const MAX_REVISION_LENGTH = 255;

type Failed = { ok: false; failure: ServiceFailure };

export interface PublishQuery {
  dryRun: boolean;
  kind?: string;
  identifier?: string;
  /**
   * Set by the registry itself, never from a request: a publish that would store something is refused with
   * this failure instead (the daily quota is spent), while the same bytes again still answer as stored.
   */
  refuseStoring?: ServiceFailure;
}

export interface PublishedRevision {
  identifier: string;
  namespace: string;
  kind: string;
  revision: string;
  digest: string;
  status: CardStatus;
  /** True when this call appended the revision; false for a dry run or the same bytes again. */
  created: boolean;
  dryRun: boolean;
  warnings: ProblemIssue[];
  /** The signature outcome recorded with the revision (absent: policy off, or nothing signed). */
  signature?: SignatureView;
}

export interface RevisionView {
  revision: string;
  kind: string;
  digest: string;
  contentType: string;
  size: number;
  status: CardStatus;
  statusMessage?: string;
  statusChangedAt: string;
  publishedAt: string;
  summary: RevisionState['summary'];
  signature?: SignatureView;
  /** Published by a catalog (POST /v1/catalogs): its id, the entry's pointer and the nested-catalog entry holding it. */
  catalog?: { id: string; pointer: string; parent?: string };
}

export type CardRead =
  | { kind: 'card'; body: { identifier: string; namespace: string; publisherId: string | null; kind: string; latest: RevisionView; verified: boolean; lookalikeOf: LookalikeFlag[] } }
  | { kind: 'redirect'; location: string; body: { identifier: string; renamedTo: string } };

export interface CardBytes {
  contentType: string;
  digest: string;
  bytes: Buffer;
  status: CardStatus;
}

export interface CardServiceDeps {
  store: EventStore;
  namespaces: NamespaceRepository;
  documents: CardDocuments;
  logger: Logger;
  now: () => Date;
  /** The namespace's signature policy on publish (trust/signature-policy.gate.ts); absent: nothing verified. */
  signatures?: PublishSignatureGate;
  /** Told of each revision a publish stored, whatever the transport (operator metrics: `registry_card_revisions_published_total`). */
  onPublished?: (kind: string) => void;
}

const CHANGED = 'The namespace kept changing during this call; retry it';

export class CardService {
  constructor(protected readonly deps: CardServiceDeps) {}

  async publish(caller: RegistryCaller, content: Buffer, query: PublishQuery): Promise<ServiceResult<PublishedRevision>> {
    if (caller.kind !== 'publisher') return fail('forbidden', 'PUBLISHER_CREDENTIAL_REQUIRED', 'Publishing needs a publisher credential (tmrp_…)');
    if (query.kind !== undefined && !Object.hasOwn(PUBLISHABLE_KINDS, query.kind)) return fail('invalid', 'PARAMETER_INVALID', `kind must be one of ${Object.keys(PUBLISHABLE_KINDS).join(', ')}`, '/kind');
    if (query.identifier !== undefined && (query.identifier.length === 0 || query.identifier.length > MAX_IDENTIFIER_LENGTH)) return fail('invalid', 'IDENTIFIER_TOO_LONG', `identifier must be 1-${MAX_IDENTIFIER_LENGTH} characters`, '/identifier');
    const validation = this.deps.documents.validate(content, query.kind !== undefined ? { kind: query.kind } : {});
    const warnings = validation.warnings.map(asProblemIssue);
    if (!validation.valid) return unprocessable('DOCUMENT_INVALID', `The document has ${validation.errors.length} error(s)`, [...validation.errors, ...validation.warnings]);
    const contentType = PUBLISHABLE_KINDS[validation.kind];
    if (contentType === undefined) return unprocessable('KIND_NOT_PUBLISHABLE', `${validation.kind} documents are not published as cards`, [{ path: '', code: 'KIND_NOT_PUBLISHABLE', severity: 'error', message: validation.kind === 'ai-catalog' ? 'Publish AI Catalogs with POST /v1/catalogs' : `Publish an AI Card, an A2A AgentCard or an MCP server.json` }]);
    const summary = this.deps.documents.summarize(validation);

    const identifier = summary.identifier ?? query.identifier;
    if (identifier === undefined) return unprocessable('IDENTIFIER_REQUIRED', 'This document names no identifier', [issue('/identifier', 'IDENTIFIER_REQUIRED', 'Pass ?identifier= (for example urn:air:acme.example:agent:name) for a document without one')]);
    if (summary.identifier !== undefined && query.identifier !== undefined && query.identifier !== summary.identifier) return unprocessable('IDENTIFIER_MISMATCH', 'The identifier parameter differs from the document', [issue('/identifier', 'IDENTIFIER_MISMATCH', 'The ?identifier= parameter must equal the identifier the document names')]);
    if (identifier.length > MAX_IDENTIFIER_LENGTH) return unprocessable('IDENTIFIER_TOO_LONG', 'The identifier is too long', [issue('/identifier', 'IDENTIFIER_TOO_LONG', `Identifiers are at most ${MAX_IDENTIFIER_LENGTH} characters`)]);
    const namespace = namespaceOf(identifier);
    if (namespace === null) return unprocessable('IDENTIFIER_NAMESPACE_UNKNOWN', 'The identifier names no domain', [issue('/identifier', 'IDENTIFIER_NAMESPACE_UNKNOWN', 'Use did:web:{domain}, urn:air:{domain}:…, https://{domain}/… or a reverse-DNS MCP name')]);

    const revision = validation.kind === 'ai-card' ? summary.updatedAt : summary.version;
    const revisionPath = validation.kind === 'ai-card' ? '/updatedAt' : '/version';
    if (revision === undefined || revision.length === 0) return unprocessable('REVISION_REQUIRED', 'The document has no revision key', [issue(revisionPath, 'REVISION_REQUIRED', `${revisionPath.slice(1)} is required to publish a revision`)]);
    if (revision.length > MAX_REVISION_LENGTH) return unprocessable('REVISION_TOO_LONG', 'The revision key is too long', [issue(revisionPath, 'REVISION_TOO_LONG', `${revisionPath.slice(1)} is at most ${MAX_REVISION_LENGTH} characters`)]);
    const updatedAtMs = validation.kind === 'ai-card' ? Date.parse(revision) : undefined;

    const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
    let signature: SignatureRecord | undefined;
    if (this.deps.signatures) {
      const { state } = await this.deps.namespaces.load(namespace);
      // Only the holder's documents cost key fetches; anyone else is refused by the decision below.
      if (state.publisherId === caller.publisherId) {
        const gate = await this.deps.signatures.check({ kind: validation.kind, document: validation.value, namespace }, state.trust.signaturePolicy);
        if (!gate.ok) return withWarnings({ ok: false, failure: gate.failure }, warnings);
        signature = gate.signature;
        warnings.push(...gate.warnings);
      }
    }
    const status: CardStatus = summary.maturity === 'deprecated' ? 'deprecated' : 'active';
    const command = (): NamespaceCommand => ({
      type: 'PublishRevision',
      publisherId: caller.publisherId,
      identifier,
      kind: validation.kind,
      revision,
      ...(updatedAtMs !== undefined ? { updatedAtMs } : {}),
      digest,
      contentType,
      content: content.toString('base64'),
      size: content.length,
      summary: { ...summary, identifier },
      status,
      ...(signature ? { signature } : {}),
      now: this.deps.now().toISOString(),
    });
    const answer = (created: boolean, dryRun: boolean) => succeed<PublishedRevision>({ identifier, namespace, kind: validation.kind, revision, digest, status, created, dryRun, warnings, ...(signature ? { signature: signatureView(signature) } : {}) });

    if (query.dryRun || query.refuseStoring) {
      const { state } = await this.deps.namespaces.load(namespace);
      const decision = decide(command(), state);
      if (!decision.ok) return withWarnings(fromRefusal(decision.refusal), warnings);
      if (query.dryRun) return answer(false, true);
      // Nothing to append: this exact revision is stored already, so a retry learns that it was.
      return decision.events.length === 0 ? answer(false, false) : { ok: false, failure: query.refuseStoring as ServiceFailure };
    }
    const outcome = await this.deps.namespaces.execute(namespace, command);
    if (!outcome.decision) return fail('conflict', 'NAMESPACE_CHANGED', CHANGED);
    if (!outcome.decision.ok) return withWarnings(fromRefusal(outcome.decision.refusal), warnings);
    if (outcome.changed) {
      this.deps.logger.log('info', 'card revision published', { namespace, kind: validation.kind, publisherId: caller.publisherId });
      this.deps.onPublished?.(validation.kind);
    }
    return answer(outcome.changed, false);
  }

  async changeStatus(caller: RegistryCaller, identifier: string, body: unknown): Promise<ServiceResult<{ identifier: string; revision: string | null; status: CardStatus; changed: boolean }>> {
    if (caller.kind !== 'publisher') return fail('forbidden', 'PUBLISHER_CREDENTIAL_REQUIRED', 'Changing a status needs a publisher credential (tmrp_…)');
    const fields = readFields(body, { status: 'string', message: 'string', revision: 'string' }, ['status']);
    if (!fields.ok) return fields;
    const { status, message, revision } = fields.value as { status: string; message?: string; revision?: string };
    if (!(CARD_STATUSES as readonly string[]).includes(status)) return fail('invalid', 'STATUS_INVALID', `status must be one of ${CARD_STATUSES.join(', ')}`, '/status');
    if (message !== undefined && message.length > 500) return fail('invalid', 'MESSAGE_TOO_LONG', 'message is at most 500 characters', '/message');
    const namespace = this.namespaceOrRefusal(identifier);
    if (typeof namespace !== 'string') return namespace;
    const now = this.deps.now().toISOString();
    const outcome = await this.deps.namespaces.execute(namespace, () => ({
      type: 'ChangeStatus',
      publisherId: caller.publisherId,
      identifier,
      revision: revision ?? null,
      status: status as CardStatus,
      ...(message !== undefined ? { message } : {}),
      now,
    }));
    if (!outcome.decision) return fail('conflict', 'NAMESPACE_CHANGED', CHANGED);
    if (!outcome.decision.ok) return fromRefusal(outcome.decision.refusal);
    return succeed({ identifier, revision: revision ?? null, status: status as CardStatus, changed: outcome.changed });
  }

  async rename(caller: RegistryCaller, identifier: string, body: unknown): Promise<ServiceResult<{ identifier: string; renamedTo: string; changed: boolean }>> {
    if (caller.kind !== 'publisher') return fail('forbidden', 'PUBLISHER_CREDENTIAL_REQUIRED', 'Renaming needs a publisher credential (tmrp_…)');
    const fields = readFields(body, { to: 'string' }, ['to']);
    if (!fields.ok) return fields;
    const to = fields.value['to'] as string;
    const namespace = this.namespaceOrRefusal(identifier);
    if (typeof namespace !== 'string') return namespace;
    if (to.length > MAX_IDENTIFIER_LENGTH) return fail('invalid', 'IDENTIFIER_TOO_LONG', `to must be at most ${MAX_IDENTIFIER_LENGTH} characters`, '/to');
    const target = namespaceOf(to);
    if (target === null) return fail('invalid', 'IDENTIFIER_NAMESPACE_UNKNOWN', 'to names no domain', '/to');
    if (target !== namespace) {
      // Another namespace: checked before the rename is decided (the rename itself is atomic on the source).
      const { state } = await this.deps.namespaces.load(target);
      if (state.publisherId !== caller.publisherId) return fail('forbidden', 'NAMESPACE_NOT_GRANTED', `Namespace ${target} is not granted to your publisher`, '/to');
      if (state.cards.has(to)) return fail('conflict', 'CARD_EXISTS', 'A card with the new identifier already exists', '/to');
    }
    const now = this.deps.now().toISOString();
    const outcome = await this.deps.namespaces.execute(namespace, () => ({ type: 'RenameCard', publisherId: caller.publisherId, from: identifier, to, now }));
    if (!outcome.decision) return fail('conflict', 'NAMESPACE_CHANGED', CHANGED);
    if (!outcome.decision.ok) return fromRefusal(outcome.decision.refusal);
    return succeed({ identifier, renamedTo: to, changed: outcome.changed });
  }

  async latest(identifier: string): Promise<ServiceResult<CardRead>> {
    const found = await this.card(identifier);
    if (!found.ok) return found;
    const { card, namespace, state } = found.value;
    if (card.renamedTo !== undefined) return succeed({ kind: 'redirect', location: card.renamedTo, body: { identifier, renamedTo: card.renamedTo } });
    const tombstone = tombstoneOf<CardRead>(card);
    if (tombstone) return tombstone;
    const latest = latestOf(card);
    if (!latest) return fail('not_found', 'NO_VISIBLE_REVISION', 'Every revision of this card is yanked or deleted; ask for an exact revision', '/identifier');
    const verified = isRevisionVerified(state, latest.signature, this.deps.now());
    return succeed({ kind: 'card', body: { identifier, namespace, publisherId: state.publisherId, kind: card.kind, latest: view(latest), verified, lookalikeOf: state.trust.lookalikes.map((flag) => ({ ...flag })) } });
  }

  async revisions(identifier: string): Promise<ServiceResult<{ identifier: string; kind: string; renamedTo?: string; deleted?: { message?: string; at: string }; revisions: RevisionView[] }>> {
    const found = await this.card(identifier);
    if (!found.ok) return found;
    const { card } = found.value;
    return succeed({
      identifier,
      kind: card.kind,
      ...(card.renamedTo !== undefined ? { renamedTo: card.renamedTo } : {}),
      ...(card.deleted ? { deleted: card.deleted } : {}),
      revisions: card.revisions.map(view),
    });
  }

  async revisionBytes(identifier: string, revision: string): Promise<ServiceResult<CardBytes>> {
    if (revision.length === 0 || revision.length > MAX_REVISION_LENGTH) return fail('invalid', 'REVISION_INVALID', `A revision is 1-${MAX_REVISION_LENGTH} characters`, '/revision');
    const found = await this.card(identifier);
    if (!found.ok) return found;
    const { card, namespace } = found.value;
    const entry = card.revisions.find((candidate) => candidate.revision === revision);
    if (!entry) return fail('not_found', 'REVISION_NOT_FOUND', 'This card has no such revision', '/revision');
    if (entry.status === 'deleted') {
      return { ok: false, failure: { kind: 'gone', code: 'REVISION_DELETED', detail: 'This revision was deleted', issues: [issue('/revision', 'REVISION_DELETED', 'This revision was deleted')], extra: { tombstone: { identifier, revision, status: 'deleted', ...(entry.statusMessage !== undefined ? { message: entry.statusMessage } : {}), deletedAt: entry.statusChangedAt } } } };
    }
    const [recorded] = await this.deps.store.readStream(namespaceStreamId(namespace), { fromVersion: entry.publishedVersion, limit: 1 });
    const event = recorded?.envelope as { eventType: string; data: Extract<NamespaceEvent, { type: 'CardRevisionPublished' }>['data'] } | undefined;
    if (event?.eventType !== 'CardRevisionPublished' || event.data.digest !== entry.digest) throw new Error('revision event missing from its stream');
    return succeed({ contentType: entry.contentType, digest: entry.digest, bytes: Buffer.from(event.data.content, 'base64'), status: entry.status });
  }

  private namespaceOrRefusal(identifier: string): string | Failed {
    if (identifier.length === 0 || identifier.length > MAX_IDENTIFIER_LENGTH) return fail('invalid', 'IDENTIFIER_TOO_LONG', `Identifiers are 1-${MAX_IDENTIFIER_LENGTH} characters`, '/identifier') as Failed;
    return namespaceOf(identifier) ?? (fail('not_found', 'CARD_NOT_FOUND', 'No card has this identifier', '/identifier') as Failed);
  }

  private async card(identifier: string): Promise<ServiceResult<{ card: CardState; namespace: string; state: NamespaceState }>> {
    const namespace = this.namespaceOrRefusal(identifier);
    if (typeof namespace !== 'string') return namespace;
    const { state } = await this.deps.namespaces.load(namespace);
    const card = state.cards.get(identifier);
    return card ? succeed({ card, namespace, state }) : fail('not_found', 'CARD_NOT_FOUND', 'No card has this identifier', '/identifier');
  }
}

function tombstoneOf<T>(card: CardState): ServiceResult<T> | null {
  if (!card.deleted) return null;
  const tombstone = { identifier: card.identifier, status: 'deleted', ...(card.deleted.message !== undefined ? { message: card.deleted.message } : {}), deletedAt: card.deleted.at };
  return { ok: false, failure: { kind: 'gone', code: 'CARD_DELETED', detail: 'This card was deleted', issues: [issue('/identifier', 'CARD_DELETED', 'This card was deleted')], extra: { tombstone } } };
}

function view(revision: RevisionState): RevisionView {
  return {
    revision: revision.revision,
    kind: revision.kind,
    digest: revision.digest,
    contentType: revision.contentType,
    size: revision.size,
    status: revision.status,
    ...(revision.statusMessage !== undefined ? { statusMessage: revision.statusMessage } : {}),
    statusChangedAt: revision.statusChangedAt,
    publishedAt: revision.publishedAt,
    summary: revision.summary,
    ...(revision.signature ? { signature: signatureView(revision.signature) } : {}),
    ...(revision.catalog ? { catalog: { ...revision.catalog } } : {}),
  };
}

const issue = (path: string, code: string, message: string): ProblemIssue => ({ path, code, severity: 'error', message });
const asProblemIssue = (documentIssue: DocumentIssue): ProblemIssue => ({ path: documentIssue.path, code: documentIssue.code, severity: documentIssue.severity, message: documentIssue.message });

function unprocessable<T>(code: string, detail: string, issues: readonly (DocumentIssue | ProblemIssue)[]): ServiceResult<T> {
  return { ok: false, failure: { kind: 'unprocessable', code, detail, issues: issues.map(asProblemIssue) } };
}

function withWarnings<T>(result: ServiceResult<T>, warnings: ProblemIssue[]): ServiceResult<T> {
  if (result.ok || warnings.length === 0) return result;
  return { ok: false, failure: { ...result.failure, issues: [...result.failure.issues, ...warnings] } };
}
