/**
 * Namespace ownership of gRPC `CardRegistry` (StartNamespaceClaim, CheckNamespaceClaim, GetNamespace,
 * ListNamespaceClaims) over the same `NamespaceTrustService` as REST `/v1/namespaces/{ns}/claims`,
 * `/claims/check`, `GET /v1/namespaces/{ns}` and `GET /v1/namespace-claims`: the same rules and refusals,
 * only the shapes differ. What to create is typed (`NamespaceProof`: a DNS TXT record, a well-known file, or
 * what to sign for did:web) rather than REST's instruction strings.
 */
import { cardRegistryV1GrpcJs as v1, timestampFromDate } from '@trustmesh/contracts';

import type { OwnershipMethod } from '../domain/namespace-trust';
import { fail, succeed, type ServiceResult } from '../service/registry-service.result';
import type { ClaimListing, NamespaceTrustService } from '../trust/namespace-trust.service';
import type { RegistryGrpcEdge } from './registry-grpc.edge';

const METHODS: ReadonlyArray<[v1.OwnershipMethod, OwnershipMethod]> = [
  [v1.OwnershipMethod.DNS_TXT, 'dns-txt'],
  [v1.OwnershipMethod.HTTPS_FILE, 'https-file'],
  [v1.OwnershipMethod.DID_WEB, 'did-web'],
];
const methodToProto = (method: OwnershipMethod | undefined) => METHODS.find(([, name]) => name === method)?.[0] ?? v1.OwnershipMethod.UNSPECIFIED;
const time = (iso: string) => timestampFromDate(new Date(iso));

/** The typed proof of `instructionsFor` (namespace-trust.service.ts). */
export function proofOf(method: OwnershipMethod, instructions: Record<string, string>): v1.NamespaceProof {
  const at = (key: string) => instructions[key] ?? '';
  const note = at('note');
  switch (method) {
    case 'dns-txt':
      return { dnsTxt: { name: at('recordName'), value: at('recordValue') }, note };
    case 'https-file':
      return { wellKnownFile: { url: at('url'), body: `${at('line')}\n` }, note };
    case 'did-web':
      return { didWeb: { did: at('did'), payload: at('payload'), typ: at('typ') }, note };
  }
}

function claimMessage(listing: ClaimListing): v1.NamespaceClaim {
  return {
    namespace: listing.namespace,
    state: listing.state,
    method: methodToProto(listing.method),
    ...(listing.method && listing.instructions ? { proof: proofOf(listing.method, listing.instructions) } : {}),
    ...(listing.claimedAt ? { claimedAt: time(listing.claimedAt) } : {}),
    ...(listing.expiresAt ? { expiresAt: time(listing.expiresAt) } : {}),
    failureCode: listing.failureCode ?? '',
  };
}

type NamespaceHandlers = Pick<v1.CardRegistryServer, 'startNamespaceClaim' | 'checkNamespaceClaim' | 'getNamespace' | 'listNamespaceClaims'>;

export function namespaceGrpcHandlers(trust: NamespaceTrustService, edge: RegistryGrpcEdge): NamespaceHandlers {
  return {
    startNamespaceClaim: edge.write('StartNamespaceClaim', async (caller, request: v1.StartNamespaceClaimRequest): Promise<ServiceResult<v1.StartNamespaceClaimResponse>> => {
      const method = METHODS.find(([value]) => value === request.method)?.[1];
      if (method === undefined) return fail('invalid', 'METHOD_INVALID', 'method must be DNS_TXT, HTTPS_FILE or DID_WEB', '/method');
      const started = await trust.startClaim(caller, request.namespace, { method });
      if (!started.ok) return started;
      const claim = started.value;
      return succeed({ namespace: claim.namespace, method: request.method, token: claim.token, expiresAt: time(claim.expiresAt), proof: proofOf(claim.method, claim.instructions) });
    }),

    checkNamespaceClaim: edge.write('CheckNamespaceClaim', async (caller, request: v1.CheckNamespaceClaimRequest): Promise<ServiceResult<v1.CheckNamespaceClaimResponse>> => {
      const checked = await trust.checkClaim(caller, request.namespace, request.proof === '' ? {} : { proof: request.proof });
      if (!checked.ok) return checked;
      const verified = checked.value;
      return succeed({
        namespace: verified.namespace,
        publisherId: verified.publisherId,
        method: methodToProto(verified.method),
        verifiedAt: time(verified.verifiedAt),
        expiresAt: time(verified.expiresAt),
        lookalikeOf: verified.lookalikeOf.map((flag) => ({ namespace: flag.namespace, reason: flag.reason })),
      });
    }),

    getNamespace: edge.read('GetNamespace', async (request: v1.GetNamespaceRequest): Promise<ServiceResult<v1.GetNamespaceResponse>> => {
      const viewed = await trust.view(request.namespace);
      if (!viewed.ok) return viewed;
      const view = viewed.value;
      const verification = view.verification;
      return succeed({
        namespace: view.namespace,
        publisherId: view.publisherId ?? '',
        verified: view.verified,
        ...(verification
          ? {
              verification: {
                method: methodToProto(verification.method),
                verifiedAt: time(verification.verifiedAt),
                expiresAt: time(verification.expiresAt),
                status: verification.status,
                ...(verification.lapsedAt ? { lapsedAt: time(verification.lapsedAt) } : {}),
                lapseCode: verification.lapseCode ?? '',
              },
            }
          : {}),
        signaturePolicy: view.signaturePolicy,
        lookalikeOf: view.lookalikeOf.map((flag) => ({ namespace: flag.namespace, reason: flag.reason })),
      });
    }),

    listNamespaceClaims: edge.write('ListNamespaceClaims', async (caller): Promise<ServiceResult<v1.ListNamespaceClaimsResponse>> => {
      const listed = await trust.listClaims(caller);
      return listed.ok ? succeed({ claims: listed.value.map(claimMessage) }) : listed;
    }),
  };
}
