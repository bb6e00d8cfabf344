/**
 * The namespace aggregate (stream `registry-namespace-<domain>`): who holds a domain and every card under
 * it, with each card's revisions and statuses (CARDS.md §5 "Immutable versions", "Deprecation / yank /
 * delete", rename and transfer). One stream per namespace makes immutability race-free: a publish is
 * decided on the state at version N and appended expecting N, so two writers of the same revision cannot
 * both win; the loser re-decides and meets the winner's bytes (same digest: idempotent; else
 * REVISION_CONFLICT).
 *
 * Pure: `decide(command, state)` returns events or a refusal, `evolve(state, event, version)` folds one.
 * Our choices (README.md): a grant covers exactly one domain (no subdomains); deleted is final for a
 * revision, and a card deleted as a whole is a tombstone that accepts no further publication; a rename
 * leaves the old identifier redirecting and refusing new revisions; `NamespaceVerified` is the event a
 * proof-based grant appends, folded like a grant; the trust events (proof lapses, signature policy,
 * look-alike flags, signature re-checks) are folded by namespace-trust.ts.
 */
import {
  isVisibleInLatest,
  latestRevision,
  type CardStatus,
  type CardSummary,
  type CatalogOrigin,
  type RegistryCardEvent,
  type RevisionOrderFacts,
} from '@trustmesh/cards-registry-events';

import { emptyTrust, evolveTrust, evolveVerified, type NamespaceTrust, type SignatureRecord } from './namespace-trust';
import { evolveCatalog, type CatalogPublishedData, type CatalogPublishedEvent } from '../catalogs/catalog-publish.decision';

export type { CardSummary, CatalogOrigin };

/** The namespace stream's events: the shared contract of `registry.cards.v1`, plus catalog publishes (registry-only). */
export type NamespaceEvent = RegistryCardEvent | CatalogPublishedEvent;

export interface RevisionState extends RevisionOrderFacts {
  kind: string;
  digest: string;
  contentType: string;
  size: number;
  summary: CardSummary;
  statusMessage?: string;
  publishedAt: string;
  statusChangedAt: string;
  signature?: SignatureRecord;
  catalog?: CatalogOrigin;
}

export interface CardState {
  identifier: string;
  kind: string;
  revisions: RevisionState[];
  /** Set when the whole card was deleted: the tombstone. */
  deleted?: { message?: string; at: string };
  renamedTo?: string;
  updatedAt: string;
}

export interface NamespaceState {
  namespace: string;
  publisherId: string | null;
  /** The last ownership proof recorded for the current holder, if any. */
  verifiedBy?: { publisherId: string; method: string; at: string };
  cards: Map<string, CardState>;
  trust: NamespaceTrust;
  /** Catalog publishes by id (`sha256:` of the catalog bytes), absent until the first. */
  catalogs?: Map<string, CatalogPublishedData>;
}

export const emptyNamespace = (namespace: string): NamespaceState => ({ namespace, publisherId: null, cards: new Map(), trust: emptyTrust() });

export type RefusalKind = 'invalid' | 'forbidden' | 'not_found' | 'conflict';
export interface Refusal {
  kind: RefusalKind;
  code: string;
  message: string;
  path: string;
}
export type Decision = { ok: true; events: NamespaceEvent[] } | { ok: false; refusal: Refusal };

export type NamespaceCommand =
  | { type: 'GrantNamespace'; publisherId: string; now: string }
  | { type: 'TransferNamespace'; toPublisherId: string; now: string }
  | {
      type: 'PublishRevision';
      publisherId: string;
      identifier: string;
      kind: string;
      revision: string;
      updatedAtMs?: number;
      digest: string;
      contentType: string;
      content: string;
      size: number;
      summary: CardSummary;
      status: CardStatus;
      signature?: SignatureRecord;
      now: string;
    }
  | { type: 'ChangeStatus'; publisherId: string; identifier: string; revision: string | null; status: CardStatus; message?: string; now: string }
  | { type: 'RenameCard'; publisherId: string; from: string; to: string; now: string };

const refuse = (kind: RefusalKind, code: string, message: string, path = ''): Decision => ({ ok: false, refusal: { kind, code, message, path } });
const accept = (...events: NamespaceEvent[]): Decision => ({ ok: true, events });

export function decide(command: NamespaceCommand, state: NamespaceState): Decision {
  const { namespace } = state;
  switch (command.type) {
    case 'GrantNamespace':
      if (state.publisherId === command.publisherId) return accept();
      if (state.publisherId !== null) return refuse('conflict', 'NAMESPACE_TAKEN', `Namespace ${namespace} is held by another publisher; transfer it instead`, '/namespace');
      return accept({ type: 'NamespaceGranted', data: { namespace, publisherId: command.publisherId, grantedAt: command.now } });
    case 'TransferNamespace':
      if (state.publisherId === null) return refuse('not_found', 'NAMESPACE_NOT_GRANTED', `Namespace ${namespace} is not granted to any publisher`);
      if (state.publisherId === command.toPublisherId) return accept();
      return accept({ type: 'NamespaceTransferred', data: { namespace, fromPublisherId: state.publisherId, toPublisherId: command.toPublisherId, transferredAt: command.now } });
    case 'PublishRevision':
      return decidePublish(command, state);
    case 'ChangeStatus':
      return decideStatus(command, state);
    case 'RenameCard':
      return decideRename(command, state);
  }
}

function notOwned(state: NamespaceState, publisherId: string): Decision | null {
  if (state.publisherId === publisherId) return null;
  return refuse('forbidden', 'NAMESPACE_NOT_GRANTED', `Namespace ${state.namespace} is not granted to your publisher`, '/identifier');
}

function decidePublish(command: Extract<NamespaceCommand, { type: 'PublishRevision' }>, state: NamespaceState): Decision {
  const refusal = notOwned(state, command.publisherId);
  if (refusal) return refusal;
  const card = state.cards.get(command.identifier);
  if (card?.renamedTo !== undefined) return refuse('conflict', 'CARD_RENAMED', `This card was renamed to ${card.renamedTo}; publish under the new identifier`, '/identifier');
  if (card?.deleted) return refuse('conflict', 'CARD_DELETED', 'This card was deleted; its identifier accepts no new revisions', '/identifier');
  if (card && card.kind !== command.kind) return refuse('conflict', 'CARD_KIND_MISMATCH', `This identifier holds ${card.kind} documents, not ${command.kind}`, '/identifier');
  const existing = card?.revisions.find((revision) => revision.revision === command.revision);
  if (existing) {
    if (existing.digest === command.digest) return accept();
    return refuse('conflict', 'REVISION_CONFLICT', `Revision ${command.revision} is already published with different bytes; revisions are immutable, publish a new one`, '/revision');
  }
  if (command.updatedAtMs !== undefined && card) {
    const newest = Math.max(...card.revisions.map((revision) => revision.updatedAtMs ?? Number.NEGATIVE_INFINITY));
    if (command.updatedAtMs <= newest) return refuse('conflict', 'REVISION_STALE', 'updatedAt must be later than that of every published revision of this card', '/updatedAt');
  }
  return accept({
    type: 'CardRevisionPublished',
    data: {
      namespace: state.namespace,
      identifier: command.identifier,
      kind: command.kind,
      revision: command.revision,
      digest: command.digest,
      contentType: command.contentType,
      content: command.content,
      size: command.size,
      summary: command.summary,
      status: command.status,
      publisherId: command.publisherId,
      publishedAt: command.now,
      ...(command.signature ? { signature: command.signature } : {}),
    },
  });
}

function decideStatus(command: Extract<NamespaceCommand, { type: 'ChangeStatus' }>, state: NamespaceState): Decision {
  const refusal = notOwned(state, command.publisherId);
  if (refusal) return refusal;
  const card = state.cards.get(command.identifier);
  if (!card) return refuse('not_found', 'CARD_NOT_FOUND', 'No card has this identifier', '/identifier');
  if (card.deleted) return refuse('conflict', 'CARD_DELETED', 'This card was deleted; deletion is final', '/status');
  const targets = command.revision === null ? card.revisions : card.revisions.filter((revision) => revision.revision === command.revision);
  if (targets.length === 0) return refuse('not_found', 'REVISION_NOT_FOUND', 'This card has no such revision', '/revision');
  if (command.revision !== null && targets[0]?.status === 'deleted') return refuse('conflict', 'REVISION_DELETED', 'This revision was deleted; deletion is final', '/status');
  const unchanged = targets.every((revision) => revision.status === command.status || revision.status === 'deleted') && targets.every((revision) => revision.statusMessage === command.message || revision.status === 'deleted');
  if (unchanged && command.status !== 'deleted') return accept();
  return accept({
    type: 'CardStatusChanged',
    data: {
      namespace: state.namespace,
      identifier: command.identifier,
      revision: command.revision,
      status: command.status,
      ...(command.message !== undefined ? { message: command.message } : {}),
      publisherId: command.publisherId,
      changedAt: command.now,
    },
  });
}

function decideRename(command: Extract<NamespaceCommand, { type: 'RenameCard' }>, state: NamespaceState): Decision {
  const refusal = notOwned(state, command.publisherId);
  if (refusal) return refusal;
  const card = state.cards.get(command.from);
  if (!card) return refuse('not_found', 'CARD_NOT_FOUND', 'No card has this identifier', '/identifier');
  if (card.renamedTo === command.to) return accept();
  if (card.renamedTo !== undefined) return refuse('conflict', 'CARD_RENAMED', `This card was already renamed to ${card.renamedTo}`, '/to');
  if (card.deleted) return refuse('conflict', 'CARD_DELETED', 'This card was deleted', '/identifier');
  if (command.to === command.from) return refuse('invalid', 'RENAME_TO_SELF', 'The new identifier equals the current one', '/to');
  // A target in this namespace is checked here, atomically; one in another namespace by the service.
  if (state.cards.has(command.to)) return refuse('conflict', 'CARD_EXISTS', 'A card with the new identifier already exists', '/to');
  return accept({ type: 'CardRenamed', data: { namespace: state.namespace, from: command.from, to: command.to, publisherId: command.publisherId, renamedAt: command.now } });
}

/** Folds one event (at stream `version`) into the state, in place; returns it. */
export function evolve(state: NamespaceState, event: NamespaceEvent, version: number): NamespaceState {
  switch (event.type) {
    case 'NamespaceGranted':
      state.publisherId = event.data.publisherId;
      return state;
    case 'NamespaceVerified':
      state.publisherId = event.data.publisherId;
      state.verifiedBy = { publisherId: event.data.publisherId, method: event.data.method, at: event.data.verifiedAt };
      evolveVerified(state, event.data);
      return state;
    case 'NamespaceTransferred':
      state.publisherId = event.data.toPublisherId;
      delete state.verifiedBy;
      return state;
    case 'CardRevisionPublished': {
      const data = event.data;
      const card = state.cards.get(data.identifier) ?? { identifier: data.identifier, kind: data.kind, revisions: [], updatedAt: data.publishedAt };
      const updatedAtMs = data.summary.updatedAt !== undefined && data.kind === 'ai-card' ? Date.parse(data.summary.updatedAt) : undefined;
      card.revisions.push({
        revision: data.revision,
        kind: data.kind,
        digest: data.digest,
        contentType: data.contentType,
        size: data.size,
        summary: data.summary,
        status: data.status,
        ...(updatedAtMs !== undefined && !Number.isNaN(updatedAtMs) ? { updatedAtMs } : {}),
        publishedVersion: version,
        publishedAt: data.publishedAt,
        statusChangedAt: data.publishedAt,
        ...(data.signature ? { signature: data.signature } : {}),
        ...(data.catalog ? { catalog: data.catalog } : {}),
      });
      card.updatedAt = data.publishedAt;
      state.cards.set(data.identifier, card);
      return state;
    }
    case 'CardStatusChanged': {
      const data = event.data;
      const card = state.cards.get(data.identifier);
      if (!card) return state;
      for (const revision of card.revisions) {
        if (data.revision !== null && revision.revision !== data.revision) continue;
        if (revision.status === 'deleted') continue;
        revision.status = data.status;
        if (data.message !== undefined) revision.statusMessage = data.message;
        else delete revision.statusMessage;
        revision.statusChangedAt = data.changedAt;
      }
      if (data.revision === null && data.status === 'deleted') card.deleted = { ...(data.message !== undefined ? { message: data.message } : {}), at: data.changedAt };
      card.updatedAt = data.changedAt;
      return state;
    }
    case 'CardRenamed': {
      const card = state.cards.get(event.data.from);
      if (card) {
        card.renamedTo = event.data.to;
        card.updatedAt = event.data.renamedAt;
      }
      return state;
    }
    case 'CatalogPublished':
      evolveCatalog(state, event.data);
      return state;
    default:
      evolveTrust(state, event);
      return state;
  }
}

/** The card's latest visible revision, or null (all yanked or deleted). */
export const latestOf = (card: CardState): RevisionState | null => latestRevision(card.revisions);

export const hasVisibleRevision = (card: CardState) => card.revisions.some((revision) => isVisibleInLatest(revision.status));
