/**
 * Request replay classification (BEHAVIOUR.md §5). A mutation is identified by the key
 * `(workspaceId, requestId)` and by the canonical JSON of `{method, params}`:
 *
 * - new: the key differs — execute;
 * - replay: same key, equal identity — answer with the original response;
 * - conflict: same key, different identity — `RELAY_REQUEST_ID_CONFLICT`.
 *
 * Only mutations are cached, so only they are ever classified against an earlier request.
 */
import { canonicalJson } from '@trustmesh/shared-canonical-json';

export interface RequestIdentity {
  workspaceId: string;
  requestId: string;
  method: string;
  params: unknown;
}

export type ReplayClassification =
  | { disposition: 'new' }
  | { disposition: 'replay' }
  | { disposition: 'conflict'; errorCode: 'RELAY_REQUEST_ID_CONFLICT' };

/** The cache key of a request. */
export function idempotencyKey(request: Pick<RequestIdentity, 'workspaceId' | 'requestId'>): string {
  return `${request.workspaceId}\u0000${request.requestId}`;
}

/** The canonical identity of a request, compared on replay. */
export function requestFingerprint(request: Pick<RequestIdentity, 'method' | 'params'>): string {
  return canonicalJson({ method: request.method, params: request.params });
}

export function classifyReplay(existing: RequestIdentity, candidate: RequestIdentity): ReplayClassification {
  if (idempotencyKey(existing) !== idempotencyKey(candidate)) return { disposition: 'new' };
  return requestFingerprint(existing) === requestFingerprint(candidate)
    ? { disposition: 'replay' }
    : { disposition: 'conflict', errorCode: 'RELAY_REQUEST_ID_CONFLICT' };
}
