/**
 * The registry's gRPC listener: `CardRegistry` and `CardRegistryOperator` on plain @grpc/grpc-js with the
 * generated codecs of `@trustmesh/contracts`, beside the HTTP API (REGISTRY_GRPC_HOST/PORT). Messages are
 * bounded: a request may carry one card of REGISTRY_MAX_CARD_BYTES plus the other fields (grpc-js refuses
 * more with RESOURCE_EXHAUSTED before anything is decoded). Plaintext: TLS is the deployment's proxy's, as
 * for HTTP and the Shield analyzer. With REGISTRY_FEED_CREDENTIALS on the local bus it also serves `EventFeed`
 * (@trustmesh/platform-event-feed) for `registry.cards.v1`, so a Shield in another process can follow the topic.
 */
import * as grpc from '@grpc/grpc-js';
import { bindPlaintext, cardRegistryV1GrpcJs, eventFeedV1GrpcJs, serveHealthAndReflection, shutdownGracefully, tolerantDecoding, type GrpcHealth } from '@trustmesh/contracts';
import type { eventFeedService } from '@trustmesh/platform-event-feed';

import { cardRegistryOperatorGrpcService, type CardRegistryOperatorGrpcDeps } from './card-registry-operator.grpc-service';
import { cardRegistryGrpcService, type CardRegistryGrpcDeps } from './card-registry.grpc-service';

/** Room for the request's other fields (identifier, kind, flags) around the document. */
const ENVELOPE_BYTES = 16 * 1024;

export type RegistryGrpcDeps = CardRegistryGrpcDeps &
  Omit<CardRegistryOperatorGrpcDeps, 'edge'> & {
    /** The EventFeed of `registry.cards.v1`, when followers are configured on the local bus. */
    feed?: ReturnType<typeof eventFeedService>;
  };

export class RegistryGrpcServer {
  private readonly server: grpc.Server;
  private readonly health: GrpcHealth;

  /** `ready` is the registry's readiness (/readyz): gRPC health reports SERVING while it passes. */
  constructor(deps: RegistryGrpcDeps, ready?: () => Promise<boolean>) {
    this.server = new grpc.Server({ 'grpc.max_receive_message_length': deps.maxCardBytes + ENVELOPE_BYTES });
    this.server.addService(tolerantDecoding(cardRegistryV1GrpcJs.CardRegistryService), cardRegistryGrpcService(deps));
    this.server.addService(tolerantDecoding(cardRegistryV1GrpcJs.CardRegistryOperatorService), cardRegistryOperatorGrpcService(deps));
    if (deps.feed) this.server.addService(deps.feed.definition, deps.feed.implementation);
    this.health = serveHealthAndReflection(this.server, {
      services: [cardRegistryV1GrpcJs.CardRegistryService, cardRegistryV1GrpcJs.CardRegistryOperatorService, ...(deps.feed ? [eventFeedV1GrpcJs.EventFeedService] : [])],
      protoFiles: [cardRegistryV1GrpcJs.protobufFileName, ...(deps.feed ? [eventFeedV1GrpcJs.protobufFileName] : [])],
      ...(ready ? { ready } : {}),
    });
  }

  /** Binds; resolves with the port (the one chosen when `port` is 0). */
  start(host: string, port: number): Promise<number> {
    return bindPlaintext(this.server, host, port);
  }

  close(): Promise<void> {
    this.health.close();
    return shutdownGracefully(this.server);
  }
}
