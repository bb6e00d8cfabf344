/**
 * gRPC `trustmesh.registry.v1.CardRegistryOperator` over the same `PublisherAdminService` as
 * `/v1/operator` (operator bearer credential only: the service refuses anyone else with
 * PERMISSION_DENIED / OPERATOR_ONLY).
 *
 * Where the proto and the REST API differ: CreatePublisher names no publisher id, so the id is the
 * client's `request_id` (a UUID, lower-cased), which also makes a retry return the first call's publisher;
 * without one a fresh UUID is used. Credentials do not expire in this registry yet, so `expires_in_days`
 * is only range-checked and `expires_at` stays unset.
 */
import { randomUUID } from 'node:crypto';

import { cardRegistryV1GrpcJs as v1, timestampFromDate } from '@trustmesh/contracts';

import type { NamespaceRepository } from '../service/namespace.repository';
import type { PublisherAdminService } from '../service/publisher-admin.service';
import { fail, succeed, type ServiceResult } from '../service/registry-service.result';
import type { RegistryGrpcEdge } from './registry-grpc.edge';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CardRegistryOperatorGrpcDeps {
  admin: PublisherAdminService;
  namespaces: NamespaceRepository;
  edge: RegistryGrpcEdge;
  now: () => Date;
}

export function cardRegistryOperatorGrpcService({ admin, namespaces, edge, now }: CardRegistryOperatorGrpcDeps): v1.CardRegistryOperatorServer {
  return {
    createPublisher: edge.write('CreatePublisher', async (caller, request: v1.CreatePublisherRequest): Promise<ServiceResult<v1.CreatePublisherResponse>> => {
      if (request.requestId !== '' && !UUID.test(request.requestId)) return fail('invalid', 'REQUEST_ID_INVALID', 'request_id must be a UUID', '/request_id');
      const publisherId = (request.requestId || randomUUID()).toLowerCase();
      let registered = await admin.registerPublisher(caller, { publisherId, displayName: request.displayName });
      if (!registered.ok && registered.failure.code === 'PUBLISHER_EXISTS') {
        const existing = await admin.getPublisher(caller, publisherId);
        if (existing.ok && existing.value.displayName === request.displayName.trim()) registered = existing;
        else return fail('conflict', 'PUBLISHER_EXISTS', 'This request_id already created a publisher with another display name', '/request_id');
      }
      if (!registered.ok) return registered.failure.code === 'PUBLISHER_ID_INVALID' ? fail('invalid', 'REQUEST_ID_INVALID', 'request_id must be a UUID', '/request_id') : registered;
      const { displayName, registeredAt } = registered.value;
      return succeed({ publisher: { publisherId, displayName, namespaces: [], createdAt: timestampFromDate(new Date(registeredAt)) } });
    }),

    issueCredential: edge.write('IssueCredential', async (caller, request: v1.IssueCredentialRequest): Promise<ServiceResult<v1.IssueCredentialResponse>> => {
      if (request.expiresInDays < 0 || request.expiresInDays > 365) return fail('invalid', 'EXPIRES_IN_DAYS_INVALID', 'expires_in_days must be 1-365 (0 for the default)', '/expires_in_days');
      const issued = await admin.issueCredential(caller, request.publisherId, request.name !== '' ? { label: request.name } : {});
      if (!issued.ok) return issued;
      return succeed({ credentialId: issued.value.credentialId, credential: issued.value.credential, issuedAt: timestampFromDate(new Date(issued.value.issuedAt)) });
    }),

    revokeCredential: edge.write('RevokeCredential', async (caller, request: v1.RevokeCredentialRequest): Promise<ServiceResult<v1.RevokeCredentialResponse>> => {
      const revoked = await admin.revokeCredential(caller, request.publisherId, request.credentialId);
      return revoked.ok ? succeed({ credentialId: revoked.value.credentialId, revokedAt: timestampFromDate(now()) }) : revoked;
    }),

    grantNamespace: edge.write('GrantNamespace', async (caller, request: v1.GrantNamespaceRequest): Promise<ServiceResult<v1.GrantNamespaceResponse>> => {
      const granted = await admin.grantNamespace(caller, { namespace: request.namespace, publisherId: request.publisherId });
      if (!granted.ok) return granted;
      return succeed({ namespace: { namespace: granted.value.namespace, publisherId: granted.value.publisherId, grantedAt: timestampFromDate(now()) } });
    }),

    transferNamespace: edge.write('TransferNamespace', async (caller, request: v1.TransferNamespaceRequest): Promise<ServiceResult<v1.TransferNamespaceResponse>> => {
      // Who held it before, for the answer; the transfer itself is decided on the stream.
      const before = caller.kind === 'operator' && request.namespace.length <= 253 ? (await namespaces.load(request.namespace)).state.publisherId : null;
      const moved = await admin.transferNamespace(caller, request.namespace, { toPublisherId: request.toPublisherId });
      if (!moved.ok) return moved;
      return succeed({ namespace: { namespace: moved.value.namespace, publisherId: moved.value.publisherId, grantedAt: timestampFromDate(now()) }, fromPublisherId: before ?? '' });
    }),
  };
}
