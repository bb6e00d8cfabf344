/**
 * gRPC `trustmesh.registry.v1.CardRegistry` over the same `CardService` as `/v1/cards` (CARDS.md §5): the
 * same rules and refusals, only the shapes differ. Publish takes the document's raw bytes; GetCard follows
 * renames (setting `renamed_from`) and answers a deleted card or revision as its tombstone (status DELETED,
 * no document) and carries the revision's recorded signature check; ListRevisions pages newest first. SearchCards
 * and SyncChanges are in card-registry-search.grpc-service.ts, PublishCatalog in card-registry-catalogs.grpc-service.ts,
 * the namespace ownership methods in card-registry-namespaces.grpc-service.ts.
 */
import { cardRegistryV1GrpcJs as v1, timestampFromDate } from '@trustmesh/contracts';

import type { CatalogPublishService } from '../catalogs/catalog-publish.service';
import type { CardService, RevisionView } from '../service/card.service';
import type { SignatureView } from '../trust/signature.view';
import { fail, succeed, type ServiceResult } from '../service/registry-service.result';
import type { NamespaceTrustService } from '../trust/namespace-trust.service';
import { catalogGrpcHandlers } from './card-registry-catalogs.grpc-service';
import { namespaceGrpcHandlers } from './card-registry-namespaces.grpc-service';
import { searchGrpcHandlers, type RegistrySearchServices } from './card-registry-search.grpc-service';
import { kindFromProto, kindToProto, statusFromProto, statusToProto } from './registry-grpc.enums';
import { failure, type RegistryGrpcEdge } from './registry-grpc.edge';

const time = (iso: string) => timestampFromDate(new Date(iso));

/** Renames followed at most: a chain longer than this is answered as it stands. */
const MAX_RENAME_HOPS = 8;
const PAGE = 100;
const CURSOR = /^r1\.(\d{1,6})$/;

function revisionMessage(identifier: string, view: RevisionView, latest: string | null): v1.CardRevision {
  return {
    identifier,
    revision: view.revision,
    kind: kindToProto(view.kind),
    status: statusToProto(view.status),
    statusMessage: view.statusMessage ?? '',
    statusChangedAt: time(view.statusChangedAt),
    digest: view.digest,
    verified: false,
    publishedAt: time(view.publishedAt),
    latest: view.revision === latest,
  };
}

/** Signature codes that say the check could not be made (the key unreachable, a profile or digest not supported), not that it failed. */
const UNVERIFIABLE = new Set(['KEY_DOCUMENT_UNAVAILABLE', 'PROFILE_UNSUPPORTED', 'DIGEST_UNSUPPORTED', 'SUBJECT_DIGEST_UNCHECKED']);

/** The signature check recorded with a revision (signature.view.ts) as the proto's SignatureVerification. */
function signatureMessage(signature: SignatureView): v1.SignatureVerification {
  return {
    path: signature.pointer ?? '',
    outcome: signature.verified ? v1.SignatureOutcome.VERIFIED : UNVERIFIABLE.has(signature.code ?? '') ? v1.SignatureOutcome.UNVERIFIABLE : v1.SignatureOutcome.INVALID,
    signer: signature.signer ?? '',
    kid: signature.kid ?? '',
    alg: signature.alg ?? '',
    profile: '',
    code: signature.code ?? '',
    message: '',
    verifiedAt: time(signature.verifiedAt ?? signature.checkedAt),
  };
}

export interface CardRegistryGrpcDeps {
  cards: CardService;
  catalogPublish: CatalogPublishService;
  edge: RegistryGrpcEdge;
  maxCardBytes: number;
  search: RegistrySearchServices;
  trust: NamespaceTrustService;
}

export function cardRegistryGrpcService({ cards, catalogPublish, edge, maxCardBytes, search, trust }: CardRegistryGrpcDeps): v1.CardRegistryServer {
  /**
   * The identifier a card answers to now (renames followed), with its revisions; a named revision is
   * served where it was published (a renamed card keeps its revisions under the old identifier).
   */
  const current = async (asked: string, revision: string) => {
    let identifier = asked;
    for (let hop = 0; ; hop += 1) {
      const listed = await cards.revisions(identifier);
      const holds = listed.ok && revision !== '' && listed.value.revisions.some((candidate) => candidate.revision === revision);
      if (!listed.ok || holds || listed.value.renamedTo === undefined || hop === MAX_RENAME_HOPS) return { identifier, listed };
      identifier = listed.value.renamedTo;
    }
  };
  const latestKey = async (identifier: string): Promise<string | null> => {
    const latest = await cards.latest(identifier);
    return latest.ok && latest.value.kind === 'card' ? latest.value.body.latest.revision : null;
  };

  return {
    publishCard: edge.write('PublishCard', async (caller, request: v1.PublishCardRequest) => {
      if (request.document.length > maxCardBytes) return { ok: false, failure: failure('exhausted', 'DOCUMENT_TOO_LARGE', `The document exceeds ${maxCardBytes} bytes`, '/document') };
      const kind = request.kind === v1.CardKind.UNSPECIFIED ? undefined : kindFromProto(request.kind);
      if (request.kind !== v1.CardKind.UNSPECIFIED && kind === undefined) return fail('invalid', 'PARAMETER_INVALID', 'kind is not a CardKind', '/kind');
      const published = await cards.publish(caller, Buffer.from(request.document), { dryRun: request.dryRun, ...(kind !== undefined ? { kind } : {}), ...(request.identifier !== '' ? { identifier: request.identifier } : {}) });
      if (!published.ok) return published;
      const value = published.value;
      return succeed<v1.PublishCardResponse>({
        identifier: value.identifier,
        revision: value.revision,
        digest: value.digest,
        kind: kindToProto(value.kind),
        status: statusToProto(value.status),
        outcome: value.dryRun ? v1.PublishOutcome.VALIDATED : value.created ? v1.PublishOutcome.CREATED : v1.PublishOutcome.UNCHANGED,
        warnings: value.warnings.map((warning) => ({ path: warning.path, code: warning.code, severity: v1.IssueSeverity.WARNING, message: warning.message })),
      });
    }),

    getCard: edge.read('GetCard', async (request: v1.GetCardRequest): Promise<ServiceResult<v1.GetCardResponse>> => {
      const { identifier, listed } = await current(request.identifier, request.revision);
      if (!listed.ok) return listed;
      const renamedFrom = identifier === request.identifier ? '' : request.identifier;
      const tombstone = (revision: string, message: string | undefined, at: string) =>
        succeed<v1.GetCardResponse>({
          card: { identifier, revision, kind: kindToProto(listed.value.kind), status: v1.CardStatus.DELETED, statusMessage: message ?? '', statusChangedAt: time(at), digest: '', document: Buffer.alloc(0), contentType: '', verified: false, signatures: [], namespace: '' },
          renamedFrom,
        });
      let revision = request.revision;
      if (listed.value.deleted && revision === '') return tombstone('', listed.value.deleted.message, listed.value.deleted.at);
      const read = await cards.latest(identifier);
      const publisherId = read.ok && read.value.kind === 'card' ? read.value.body.publisherId : null;
      const namespace = read.ok && read.value.kind === 'card' ? read.value.body.namespace : '';
      if (revision === '') {
        const latest = read.ok && read.value.kind === 'card' ? read.value.body.latest.revision : null;
        if (latest === null) return fail('not_found', 'NO_VISIBLE_REVISION', 'Every revision of this card is yanked or deleted; ask for an exact revision', '/identifier');
        revision = latest;
      }
      const view = listed.value.revisions.find((candidate) => candidate.revision === revision);
      if (!view) return fail('not_found', 'REVISION_NOT_FOUND', 'This card has no such revision', '/revision');
      if (view.status === 'deleted') return tombstone(view.revision, view.statusMessage, view.statusChangedAt);
      const bytes = await cards.revisionBytes(identifier, revision);
      if (!bytes.ok) return bytes;
      return succeed<v1.GetCardResponse>({
        card: {
          identifier,
          revision,
          kind: kindToProto(view.kind),
          status: statusToProto(bytes.value.status),
          statusMessage: view.statusMessage ?? '',
          statusChangedAt: time(view.statusChangedAt),
          digest: bytes.value.digest,
          document: bytes.value.bytes,
          contentType: bytes.value.contentType,
          // The namespace's holder; its display name is the operator's to read (empty here).
          ...(publisherId !== null ? { publisher: { publisherId, displayName: '' } } : {}),
          verified: view.signature?.verified === true,
          signatures: view.signature ? [signatureMessage(view.signature)] : [],
          publishedAt: time(view.publishedAt),
          namespace,
        },
        renamedFrom,
      });
    }),

    listRevisions: edge.read('ListRevisions', async (request: v1.ListRevisionsRequest): Promise<ServiceResult<v1.ListRevisionsResponse>> => {
      if (request.limit < 0) return fail('invalid', 'LIMIT_INVALID', 'limit must be 0-100', '/limit');
      const offset = request.cursor === '' ? 0 : Number(CURSOR.exec(request.cursor)?.[1] ?? Number.NaN);
      if (Number.isNaN(offset)) return fail('invalid', 'CURSOR_INVALID', 'cursor must be the next_cursor of a previous answer', '/cursor');
      const listed = await cards.revisions(request.identifier);
      if (!listed.ok) return listed;
      const limit = Math.min(request.limit === 0 ? PAGE : request.limit, PAGE);
      const latest = await latestKey(request.identifier);
      const newestFirst = [...listed.value.revisions].reverse();
      const page = newestFirst.slice(offset, offset + limit);
      const next = offset + limit < newestFirst.length ? `r1.${offset + limit}` : '';
      return succeed({ revisions: page.map((view) => revisionMessage(request.identifier, view, latest)), nextCursor: next });
    }),

    setStatus: edge.write('SetStatus', async (caller, request: v1.SetStatusRequest): Promise<ServiceResult<v1.SetStatusResponse>> => {
      const status = statusFromProto(request.status);
      if (status === undefined) return fail('invalid', 'STATUS_INVALID', 'status must be ACTIVE, DEPRECATED, YANKED or DELETED', '/status');
      const body = { status, ...(request.message !== '' ? { message: request.message } : {}), ...(request.revision !== '' ? { revision: request.revision } : {}) };
      const changed = await cards.changeStatus(caller, request.identifier, body);
      if (!changed.ok) return changed;
      const listed = await cards.revisions(request.identifier);
      if (!listed.ok) return listed;
      const latest = await latestKey(request.identifier);
      const touched = listed.value.revisions.filter((view) => request.revision === '' || view.revision === request.revision);
      return succeed({ revisions: touched.reverse().map((view) => revisionMessage(request.identifier, view, latest)) });
    }),

    renameCard: edge.write('RenameCard', async (caller, request: v1.RenameCardRequest): Promise<ServiceResult<v1.RenameCardResponse>> => {
      const renamed = await cards.rename(caller, request.identifier, { to: request.to });
      return renamed.ok ? succeed({ identifier: renamed.value.renamedTo, renamedFrom: renamed.value.identifier }) : renamed;
    }),

    ...catalogGrpcHandlers(catalogPublish, edge, maxCardBytes),
    ...searchGrpcHandlers(search, edge),
    ...namespaceGrpcHandlers(trust, edge),
  };
}
