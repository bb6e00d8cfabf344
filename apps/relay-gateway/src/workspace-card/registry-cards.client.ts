/**
 * The card registry's gRPC API (CardRegistry) as the relay calls it: PublishCard and SetStatus with the
 * relay's publisher credential as the bearer, a deadline on every call, and every failure sorted into
 * `transient` (the registry cannot be reached or asks to wait: retry later) or `refused` (the registry
 * decided: retrying the same request cannot help) with the registry's stable code from the
 * `registry-issues-bin` trailer. The credential never appears in an error.
 */
import { status as GrpcStatus, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { bearerMetadataOf, callUnary, cardRegistryV1GrpcJs as registry, channelCredentialsOf, decodeRegistryRefusal, REGISTRY_ISSUES_METADATA, type UnaryInvoker } from '@trustmesh/contracts';
import { withTraceparent } from '@trustmesh/platform-tracing';

import type { WorkspaceCardConfig } from './workspace-card.config';

const CALL_TIMEOUT_MS = 10_000;

/** Status codes that describe the registry's (or the network's) state, not the request. */
const TRANSIENT = new Set<number>([GrpcStatus.UNAVAILABLE, GrpcStatus.DEADLINE_EXCEEDED, GrpcStatus.RESOURCE_EXHAUSTED, GrpcStatus.ABORTED, GrpcStatus.INTERNAL, GrpcStatus.UNKNOWN, GrpcStatus.CANCELLED]);

export type RegistryOutcome = { ok: true } | { ok: false; transient: boolean; code: string };

export type RegistryCardStatus = 'active' | 'deprecated';

const STATUS: Record<RegistryCardStatus, registry.CardStatus> = { active: registry.CardStatus.ACTIVE, deprecated: registry.CardStatus.DEPRECATED };

export class RegistryCardsClient {
  private readonly client: registry.CardRegistryClient;
  private readonly metadata: Metadata;

  constructor(config: WorkspaceCardConfig) {
    this.client = new registry.CardRegistryClient(config.registry.address, channelCredentialsOf(config.registry));
    this.metadata = bearerMetadataOf(config.registry);
  }

  /** Publishes an AI Card's exact bytes; CREATED and UNCHANGED are both success. */
  publishCard(document: Buffer): Promise<RegistryOutcome> {
    return this.unary<registry.PublishCardRequest, registry.PublishCardResponse>(
      (request, metadata, options, callback) => this.client.publishCard(request, metadata, options, callback),
      { document, kind: registry.CardKind.AI_CARD, identifier: '', dryRun: false },
    );
  }

  /** Sets the status of every revision of the card. */
  setStatus(identifier: string, status: RegistryCardStatus, message: string): Promise<RegistryOutcome> {
    return this.unary<registry.SetStatusRequest, registry.SetStatusResponse>(
      (request, metadata, options, callback) => this.client.setStatus(request, metadata, options, callback),
      { identifier, status: STATUS[status], message, revision: '' },
    );
  }

  close(): void {
    this.client.close();
  }

  private unary<Req, Res>(invoke: UnaryInvoker<Req, Res>, request: Req): Promise<RegistryOutcome> {
    // The active span's traceparent goes along (a copy of the shared metadata): the registry's span is its child.
    return callUnary(invoke, request, withTraceparent(this.metadata.clone()), CALL_TIMEOUT_MS).then(
      (): RegistryOutcome => ({ ok: true }),
      (error: ServiceError): RegistryOutcome => {
        const refusal = decodeRegistryRefusal(error.metadata?.get(REGISTRY_ISSUES_METADATA)[0] as Buffer | undefined);
        const code = refusal?.code ?? `GRPC_${GrpcStatus[error.code] ?? error.code}`;
        return { ok: false, transient: TRANSIENT.has(error.code), code: code.slice(0, 64) };
      },
    );
  }
}
