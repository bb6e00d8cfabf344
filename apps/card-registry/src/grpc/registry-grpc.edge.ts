/**
 * What every registry RPC shares (proto/trustmesh/registry/v1/card_registry.proto, header): the per-source
 * rate limit (the same counters as HTTP), decoding that never blames the server for a client's bytes,
 * `authorization: Bearer` metadata, the per-credential limit on writes, refusals as a status code plus the
 * `registry-issues-bin` trailer (`encodeRegistryRefusal`), UNAVAILABLE when the database is unreachable,
 * and one log line per call (method and status code only, never a credential or a document). What the
 * shield's edge shares (decoding, bearer, statuses, the answer and its log line) is `unary-edge.ts` of
 * @trustmesh/contracts.
 */
import * as grpc from '@grpc/grpc-js';
import {
  bearerCredentialOf,
  encodeRegistryRefusal,
  GRPC_STATUS_OF_REFUSAL,
  isUndecodable,
  REGISTRY_ISSUES_METADATA,
  serveUnary,
  type UnaryAnswer,
  type UnaryEdge,
  type UnaryRefusal,
} from '@trustmesh/contracts';
import { MAX_ON_BEHALF_OF, ON_BEHALF_OF_HEADER } from '@trustmesh/platform-credentials';
import type { Logger } from '@trustmesh/platform-logging';
import { grpcPeerAddress, sourceAddressOf } from '@trustmesh/platform-rate-limits';
import { traceGrpcServerCall } from '@trustmesh/platform-tracing';

import type { RegistryLimits, RouteClass } from '../limits/registry-limits';
import type { RegistryCaller, RegistryCallers } from '../service/registry-callers';
import { isUnavailable, UNAVAILABLE, type ServiceFailure, type ServiceResult } from '../service/registry-service.result';

/** The status a failure is answered with (the REST status each stands for is in the proto's header). */
function statusOf(failure: ServiceFailure): grpc.status {
  if (failure.kind !== 'conflict') return GRPC_STATUS_OF_REFUSAL[failure.kind];
  if (failure.code === 'REVISION_CONFLICT' || failure.code === 'PUBLISHER_EXISTS') return grpc.status.ALREADY_EXISTS;
  // A race lost inside the registry: the same call again is the fix.
  if (failure.code === 'NAMESPACE_CHANGED') return grpc.status.ABORTED;
  // A catalog a concurrent change stopped after earlier namespaces were stored: the same bytes again finish it.
  if (failure.code === 'CATALOG_PARTIALLY_STORED') return grpc.status.ABORTED;
  return grpc.status.FAILED_PRECONDITION;
}

/** Trailers an RPC adds to a refusal beside `registry-issues-bin` (PublishCatalog's partial result). */
export type RefusalTrailers = (failure: ServiceFailure) => Record<string, Buffer>;

function refusalOf(code: grpc.status, failure: ServiceFailure, trailers?: RefusalTrailers): UnaryRefusal {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(trailers?.(failure) ?? {})) metadata.set(key, value);
  const retryAfterSeconds = failure.extra?.['retryAfterSeconds'];
  metadata.set(
    REGISTRY_ISSUES_METADATA,
    encodeRegistryRefusal({ error: failure.detail, code: failure.code, issues: failure.issues, ...(typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {}) }),
  );
  return { code, details: failure.detail, metadata };
}

export function failure(kind: ServiceFailure['kind'], code: string, message: string, path = ''): ServiceFailure {
  return { kind, code, detail: message, issues: [{ path, code, severity: 'error', message }] };
}

type RpcHandler<Req, Res> = (caller: RegistryCaller | null, request: Req) => Promise<ServiceResult<Res>>;

export interface RegistryGrpcEdgeOptions {
  callers: RegistryCallers;
  logger: Logger;
  limits?: RegistryLimits;
}

export class RegistryGrpcEdge {
  private readonly edge: UnaryEdge;

  constructor(private readonly options: RegistryGrpcEdgeOptions) {
    this.edge = {
      name: 'registry',
      log: (level, message, fields) => options.logger.log(level, message, fields),
      isUnavailable,
      unavailable: () => refusalOf(grpc.status.UNAVAILABLE, failure('invalid', UNAVAILABLE.code, UNAVAILABLE.message)),
      trace: traceGrpcServerCall,
    };
  }

  /** An anonymous read RPC (the more generous per-source limit). */
  read<Req, Res>(method: string, run: (request: Req) => Promise<ServiceResult<Res>>): grpc.handleUnaryCall<Req, Res> {
    return this.unary(method, 'read', (_caller, request: Req) => run(request));
  }

  /** An RPC that needs a bearer credential (publisher or operator: the service decides which it accepts). */
  write<Req, Res>(method: string, run: (caller: RegistryCaller, request: Req) => Promise<ServiceResult<Res>>, trailers?: RefusalTrailers): grpc.handleUnaryCall<Req, Res> {
    return this.unary(method, 'write', (caller, request: Req) => run(caller as RegistryCaller, request), trailers);
  }

  private unary<Req, Res>(method: string, routeClass: RouteClass, run: RpcHandler<Req, Res>, trailers?: RefusalTrailers): grpc.handleUnaryCall<Req, Res> {
    return serveUnary(this.edge, method, async (call): Promise<UnaryAnswer<Res>> => {
      const outcome = await this.handle(method, routeClass, call, run);
      return outcome.ok ? outcome : { ok: false, refusal: refusalOf(statusOf(outcome.failure), outcome.failure, trailers) };
    });
  }

  private async handle<Req, Res>(method: string, routeClass: RouteClass, call: grpc.ServerUnaryCall<Req, Res>, run: RpcHandler<Req, Res>): Promise<ServiceResult<Res>> {
    const { limits, callers } = this.options;
    if (limits) {
      const forwarded = call.metadata.get('x-forwarded-for').filter((value): value is string => typeof value === 'string');
      const limited = limits.admitSource(sourceAddressOf(grpcPeerAddress(call.getPeer()), forwarded, limits.trustedProxies), routeClass);
      if (limited) return { ok: false, failure: limited };
    }
    let caller: RegistryCaller | null = null;
    if (routeClass === 'write') {
      const onBehalfOf = call.metadata.get(ON_BEHALF_OF_HEADER)[0];
      const authenticated = await callers.authenticate(bearerCredentialOf(call.metadata), typeof onBehalfOf === 'string' ? onBehalfOf.slice(0, MAX_ON_BEHALF_OF + 1) : undefined);
      if (!authenticated.ok) {
        const refused = authenticated.failure;
        return { ok: false, failure: refused.code === 'UNAUTHENTICATED' ? failure('unauthenticated', 'UNAUTHENTICATED', 'A valid bearer credential is required (metadata authorization: Bearer …)') : refused };
      }
      caller = authenticated.value;
      const limited = limits?.admitCaller(caller);
      if (limited) return { ok: false, failure: limited };
    }
    if (isUndecodable(call.request)) return { ok: false, failure: failure('invalid', 'MESSAGE_INVALID', `The request is not a ${method}Request message`) };
    return run(caller, call.request);
  }
}
