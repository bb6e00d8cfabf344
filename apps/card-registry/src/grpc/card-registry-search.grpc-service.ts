/**
 * `SearchCards` and `SyncChanges` of gRPC `CardRegistry` over the same `SearchService` and `ChangesService`
 * as `GET /v1/search` and `GET /v1/changes` (CARDS.md §5 "Search and filters", "Incremental sync"). The
 * request becomes the REST query string and goes through the same reader (`readSearchQuery`,
 * `readChangesQuery`), so both transports accept and refuse exactly the same things with the same codes.
 * Where the proto says more: 0 means the default limit, and YANKED or DELETED as a search status filter
 * is refused (they are never hits). A sync entry is one revision; a card-level change without a revision
 * in the page (a rename, a whole-card tombstone) is one entry with an empty revision.
 */
import { cardRegistryV1GrpcJs as v1, dateFromTimestamp, timestampFromDate } from '@trustmesh/contracts';

import type { ChangesService } from '../search/changes.service';
import { isParameterRefusal, readChangesQuery, readSearchQuery, type ParameterRefusal } from '../search/search.parameters';
import type { SearchService } from '../search/search.service';
import { fail, succeed, type ServiceResult } from '../service/registry-service.result';
import { kindToProto, statusToProto } from './registry-grpc.enums';
import type { RegistryGrpcEdge } from './registry-grpc.edge';

export interface RegistrySearchServices {
  search: SearchService;
  changes: ChangesService;
}

const FILTER_KINDS: ReadonlyArray<[v1.CardKind, string]> = [
  [v1.CardKind.AI_CARD, 'ai-card'],
  [v1.CardKind.A2A, 'a2a'],
  [v1.CardKind.MCP_SERVER, 'mcp'],
];
const FILTER_STATUSES: ReadonlyArray<[v1.CardStatus, string]> = [
  [v1.CardStatus.ACTIVE, 'active'],
  [v1.CardStatus.DEPRECATED, 'deprecated'],
];
const FACET_FIELDS: Record<string, string> = { kind: 'kind', protocol: 'protocol', tag: 'tag', publisherDomain: 'publisher_domain', status: 'status', verified: 'verified' };

const refused = <T>(refusal: ParameterRefusal): ServiceResult<T> => fail('invalid', refusal.code, refusal.message, refusal.path);
const time = (iso: string) => timestampFromDate(new Date(iso));

function searchQueryString(request: v1.SearchCardsRequest): string | ParameterRefusal {
  const params = new URLSearchParams();
  if (request.query !== '') params.set('q', request.query);
  const filters = request.filters;
  for (const kind of filters?.kinds ?? []) {
    const name = FILTER_KINDS.find(([value]) => value === kind)?.[1];
    if (name === undefined) return { code: 'PARAMETER_INVALID', message: 'kinds may hold AI_CARD, A2A and MCP_SERVER', path: '/filters/kinds' };
    params.append('kind', name);
  }
  for (const status of filters?.statuses ?? []) {
    const name = FILTER_STATUSES.find(([value]) => value === status)?.[1];
    if (name === undefined) return { code: 'PARAMETER_INVALID', message: 'statuses may hold ACTIVE and DEPRECATED: yanked and deleted cards are never hits', path: '/filters/statuses' };
    params.append('status', name);
  }
  for (const protocol of filters?.protocols ?? []) params.append('protocol', protocol);
  for (const tag of filters?.tags ?? []) params.append('tag', tag);
  for (const domain of filters?.publisherDomains ?? []) params.append('publisherDomain', domain);
  if (filters?.verified === v1.VerifiedFilter.VERIFIED_ONLY) params.set('verified', 'true');
  if (filters?.verified === v1.VerifiedFilter.UNVERIFIED_ONLY) params.set('verified', 'false');
  if (request.limit !== 0) params.set('limit', String(request.limit));
  if (request.cursor !== '') params.set('cursor', request.cursor);
  return params.toString();
}

export function searchGrpcHandlers(services: RegistrySearchServices, edge: RegistryGrpcEdge): Pick<v1.CardRegistryServer, 'searchCards' | 'syncChanges'> {
  return {
    searchCards: edge.read('SearchCards', async (request: v1.SearchCardsRequest): Promise<ServiceResult<v1.SearchCardsResponse>> => {
      const search = searchQueryString(request);
      if (typeof search !== 'string') return refused(search);
      const query = readSearchQuery(search);
      if (isParameterRefusal(query)) return refused(query);
      const page = await services.search.search(query);
      if (!page.ok) return page;
      return succeed({
        hits: page.value.items.map((hit) => ({
          identifier: hit.identifier,
          revision: hit.revision ?? '',
          kind: kindToProto(hit.kind),
          status: statusToProto(hit.status),
          name: hit.name,
          description: hit.description,
          tags: hit.tags,
          protocols: hit.protocols,
          publisherDomain: hit.publisherDomain,
          verified: hit.verified,
          digest: '',
          updatedAt: time(hit.updatedAt),
          score: hit.score ?? 0,
        })),
        nextCursor: page.value.nextCursor ?? '',
        facets: Object.entries(page.value.facets ?? {}).map(([field, values]) => ({ field: FACET_FIELDS[field] ?? field, values: values.map(({ value, count }) => ({ value, count })) })),
      });
    }),

    syncChanges: edge.read('SyncChanges', async (request: v1.SyncChangesRequest): Promise<ServiceResult<v1.SyncChangesResponse>> => {
      const params = new URLSearchParams();
      if (request.updatedSince) params.set('updatedSince', dateFromTimestamp(request.updatedSince).toISOString());
      else if (request.includeDeleted) params.set('includeDeleted', 'true');
      params.set('limit', String(request.limit === 0 ? 100 : request.limit));
      if (request.cursor !== '') params.set('cursor', request.cursor);
      const query = readChangesQuery(params.toString());
      if (isParameterRefusal(query)) return refused(query);
      const page = await services.changes.changes(query);
      if (!page.ok) return page;
      const changes = page.value.changes.flatMap((card): v1.CardChange[] => {
        const base = { identifier: card.identifier, kind: kindToProto(card.kind), renamedTo: card.renamedTo ?? '' };
        if (!card.revisions || card.revisions.length === 0) {
          return [{ ...base, revision: '', status: statusToProto(card.status), digest: '', updatedAt: time(card.updatedAt), tombstone: card.deleted === true }];
        }
        return card.revisions.map((revision) => ({
          ...base,
          revision: revision.revision,
          status: statusToProto(revision.status),
          digest: revision.digest ?? '',
          updatedAt: time(revision.updatedAt),
          tombstone: revision.deleted === true || revision.status === 'deleted',
        }));
      });
      return succeed({ changes, nextCursor: page.value.nextCursor ?? '' });
    }),
  };
}
