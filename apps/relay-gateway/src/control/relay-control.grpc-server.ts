/**
 * The gRPC transport of the control plane: trustmesh.relay.v1.RelayControl and
 * trustmesh.platform.v1.ServiceInfo on their own port, with @grpc/grpc-js and the ts-proto grpc-js service
 * definitions (generated codecs; no .proto file is read at run time).
 *
 * Why grpc-js directly rather than a NestJS gRPC microservice: the bearer check must run before any
 * handler for every method (a Nest guard runs after Nest has routed and decoded, and a forgotten decorator
 * would leave a method anonymous); WatchWorkspaceStatus must end with UNAVAILABLE when the gateway stops,
 * which Nest's Observable streams cannot express; and the status codes each RPC documents map one to one
 * from `ControlError` here. The use cases stay in `RelayControlService`, transport-free.
 *
 * Authentication: `authorization: Bearer <service credential>`; the credential's SHA-256 is compared in
 * constant time with every configured digest. Nothing of the relay's is anonymous (UNAUTHENTICATED
 * otherwise); the standard health and reflection services beside them are, as probes need them to be, and
 * tell only service names, message shapes and a status (@trustmesh/contracts grpc-health.ts).
 */
import * as grpc from '@grpc/grpc-js';
import { relayControlV1GrpcJs, serveHealthAndReflection, serviceInfoV1GrpcJs, timestampFromDate, type GrpcHealth } from '@trustmesh/contracts';
import { matchesAnyDigest, sha256 } from '@trustmesh/platform-credentials';
import { DatabaseError } from '@trustmesh/platform-database';
import { EventStoreError } from '@trustmesh/platform-event-store';
import { traceGrpcServerCall } from '@trustmesh/platform-tracing';
import { REMOTE_WIRE_VERSIONS } from '@trustmesh/relay-protocol';

import { RELAY_GATEWAY_SERVICE_NAME, RELAY_GATEWAY_VERSION, type RelayGatewayConfig } from '../config/relay-gateway.config';
import type { JsonLogger } from '../logging/json-logger';
import type { TlsMaterial } from '../tls/tls-material';
import type { WorkspaceStatusView } from './relay-directory.port';
import type { PublishedWorkspaceCard, WorkspaceCardService } from '../workspace-card/workspace-card.service';
import { ControlError, type RelayControlService } from './relay-control.service';

const { WorkspaceConnectivity } = relayControlV1GrpcJs;
type WorkspaceStatusMessage = relayControlV1GrpcJs.WorkspaceStatus;

const MAX_CREDENTIAL_LENGTH = 4096;
const STATUS: Record<ControlError['code'], grpc.status> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
};
/** Trailing metadata carrying a refusal's stable reason (ControlError.reason). */
export const RELAY_REFUSAL_CODE_METADATA = 'relay-refusal-code';
const { WorkspaceCardDelivery, WorkspaceCardStatus } = relayControlV1GrpcJs;
const DELIVERY: Record<PublishedWorkspaceCard['delivery'], relayControlV1GrpcJs.WorkspaceCardDelivery> = {
  published: WorkspaceCardDelivery.PUBLISHED,
  pending: WorkspaceCardDelivery.PENDING,
  refused: WorkspaceCardDelivery.REFUSED,
};

export function toStatusMessage(status: WorkspaceStatusView): WorkspaceStatusMessage {
  return {
    workspaceId: status.workspaceId,
    connectivity: status.status === 'online' ? WorkspaceConnectivity.ONLINE : WorkspaceConnectivity.OFFLINE,
    deviceId: status.deviceId ?? '',
    wireVersion: status.wireVersion ?? '',
    browserSessionCount: status.browserSessionCount,
    changedAt: status.changedAt ? timestampFromDate(status.changedAt) : null,
  };
}

export class RelayControlGrpcServer {
  private server: grpc.Server | undefined;
  private health: GrpcHealth | undefined;
  private readonly watches = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  private boundPort = 0;

  constructor(
    private readonly service: RelayControlService,
    private readonly cards: WorkspaceCardService,
    private readonly config: RelayGatewayConfig,
    private readonly credentialDigests: readonly Buffer[],
    private readonly logger: JsonLogger,
    private readonly tls: TlsMaterial | null,
  ) {}

  /** The port the server is bound to (after `start`). */
  get port(): number {
    return this.boundPort;
  }

  /** Binds the port; gRPC health follows `ready` (the gateway's /readyz check), SERVING while it passes. */
  async start(ready?: () => Promise<boolean>): Promise<number> {
    const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 });
    server.addService(relayControlV1GrpcJs.RelayControlService, this.relayControlHandlers());
    server.addService(serviceInfoV1GrpcJs.ServiceInfoService, {
      getServiceInfo: this.unary('GetServiceInfo', async () => ({
        serviceName: RELAY_GATEWAY_SERVICE_NAME,
        version: RELAY_GATEWAY_VERSION,
        grpcPackages: [serviceInfoV1GrpcJs.protobufPackage, relayControlV1GrpcJs.protobufPackage],
        wireVersions: [...REMOTE_WIRE_VERSIONS],
        controlVersions: ['1.0'],
      })),
    } satisfies serviceInfoV1GrpcJs.ServiceInfoServer);
    this.health = serveHealthAndReflection(server, {
      services: [relayControlV1GrpcJs.RelayControlService, serviceInfoV1GrpcJs.ServiceInfoService],
      protoFiles: [relayControlV1GrpcJs.protobufFileName, serviceInfoV1GrpcJs.protobufFileName],
      ...(ready ? { ready } : {}),
    });
    const credentials =
      this.config.grpc.tls && this.tls
        ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(this.tls.cert), private_key: Buffer.from(this.tls.key) }], false)
        : grpc.ServerCredentials.createInsecure();
    const host = this.config.grpc.host.includes(':') && !this.config.grpc.host.startsWith('[') ? `[${this.config.grpc.host}]` : this.config.grpc.host;
    this.boundPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${host}:${this.config.grpc.port}`, credentials, (error, port) => (error ? reject(error) : resolve(port))),
    );
    this.server = server;
    return this.boundPort;
  }

  /** Ends every watch with UNAVAILABLE, lets calls in flight finish (bounded), then closes the port. */
  async stop(graceMs = 5_000): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.health?.close();
    if (!server) return;
    for (const call of [...this.watches]) {
      call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'the relay is shutting down; reconnect to watch again' });
    }
    this.watches.clear();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private relayControlHandlers(): relayControlV1GrpcJs.RelayControlServer {
    const service = this.service;
    return {
      createWorkspace: this.unary('CreateWorkspace', async (request: relayControlV1GrpcJs.CreateWorkspaceRequest) => {
        const workspace = await service.createWorkspace(request);
        return {
          workspace: {
            workspaceId: workspace.workspaceId,
            ownerUserId: workspace.ownerUserId,
            displayName: workspace.displayName,
            createdAt: timestampFromDate(workspace.createdAt),
            endToEndEncrypted: workspace.endToEndEncrypted,
          },
        };
      }),
      createPairingCode: this.unary('CreatePairingCode', async (request: relayControlV1GrpcJs.CreatePairingCodeRequest) => {
        const issued = await service.createPairingCode(request);
        return { pairingCode: issued.pairingCode, expiresAt: timestampFromDate(issued.expiresAt) };
      }),
      listDevices: this.unary('ListDevices', async (request: relayControlV1GrpcJs.ListDevicesRequest) => {
        const page = await service.listDevices(request);
        return {
          devices: page.devices.map((device) => ({
            deviceId: device.deviceId,
            workspaceId: device.workspaceId,
            enrolledAt: timestampFromDate(device.enrolledAt),
            connected: device.connected,
            wireVersion: device.wireVersion,
            lastConnectedAt: device.lastConnectedAt ? timestampFromDate(device.lastConnectedAt) : null,
          })),
          nextPageToken: page.nextPageToken,
        };
      }),
      revokeDevice: this.unary('RevokeDevice', async (request: relayControlV1GrpcJs.RevokeDeviceRequest) => {
        const revoked = await service.revokeDevice(request);
        return { revokedAt: timestampFromDate(revoked.revokedAt), disconnected: revoked.disconnected };
      }),
      endBrowserSessions: this.unary('EndBrowserSessions', async (request: relayControlV1GrpcJs.EndBrowserSessionsRequest) => service.endBrowserSessions(request)),
      createBrowserSession: this.unary('CreateBrowserSession', async (request: relayControlV1GrpcJs.CreateBrowserSessionRequest) => {
        const descriptor = await service.createBrowserSession(request);
        return { descriptor: { connectUrl: descriptor.connectUrl, expiresAt: timestampFromDate(descriptor.expiresAt) } };
      }),
      publishWorkspaceCard: this.unary('PublishWorkspaceCard', async (request: relayControlV1GrpcJs.PublishWorkspaceCardRequest) => {
        const card = await this.cards.publish(request);
        return {
          identifier: card.identifier,
          revision: card.revision,
          delivery: DELIVERY[card.delivery],
          status: card.status === 'deprecated' ? WorkspaceCardStatus.DEPRECATED : WorkspaceCardStatus.ACTIVE,
          registryRefusalCode: card.registryRefusalCode,
        };
      }),
      listWorkspaceAudit: this.unary('ListWorkspaceAudit', async (request: relayControlV1GrpcJs.ListWorkspaceAuditRequest) => {
        const page = await service.listWorkspaceAudit(request);
        return { entries: page.entries.map((entry) => ({ ...entry, occurredAt: timestampFromDate(entry.occurredAt) })), nextPageToken: page.nextPageToken };
      }),
      getWorkspaceStatus: this.unary('GetWorkspaceStatus', async (request: relayControlV1GrpcJs.GetWorkspaceStatusRequest) => ({
        status: toStatusMessage(await service.getWorkspaceStatus(request)),
      })),
      watchWorkspaceStatus: (call) => {
        if (!this.authenticate(call.metadata, 'WatchWorkspaceStatus')) {
          call.emit('error', unauthenticated());
          return;
        }
        if (!this.server) {
          call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'the relay is shutting down; reconnect to watch again' });
          return;
        }
        const stream = call as unknown as grpc.ServerWritableStream<unknown, unknown>;
        let stop: (() => void) | undefined;
        let ended = false;
        const end = () => {
          ended = true;
          stop?.();
          this.watches.delete(stream);
        };
        call.on('cancelled', end);
        call.on('close', end);
        call.on('error', end);
        service
          .watchWorkspaceStatus(call.request, (status) => {
            if (!ended) call.write({ status: toStatusMessage(status) });
          })
          .then(
            (watch) => {
              stop = watch.stop;
              if (ended) {
                watch.stop();
                return;
              }
              this.watches.add(stream);
              call.write({ status: toStatusMessage(watch.current) });
            },
            (error: unknown) => {
              if (!ended) call.emit('error', this.toStatus(error, 'WatchWorkspaceStatus'));
            },
          );
      },
    };
  }

  private unary<Req, Res>(method: string, handler: (request: Req) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) =>
      void traceGrpcServerCall(call.getPath(), call.metadata, async () => {
        if (!this.authenticate(call.metadata, method)) {
          const refusal = unauthenticated();
          callback(refusal);
          return refusal.code;
        }
        return handler(call.request).then(
          (response) => {
            callback(null, response);
            return grpc.status.OK;
          },
          (error: unknown) => {
            const status = this.toStatus(error, method);
            callback(status);
            return status.code;
          },
        );
      });
  }

  private authenticate(metadata: grpc.Metadata, method: string): boolean {
    const values = metadata.get('authorization');
    const header = values.length === 1 && typeof values[0] === 'string' ? values[0] : '';
    const match = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(header);
    const token = match?.[1] ?? '';
    // Always hash and compare against every digest, so time does not tell missing from wrong.
    const ok = matchesAnyDigest(sha256(token.slice(0, MAX_CREDENTIAL_LENGTH)), this.credentialDigests) && token.length > 0;
    if (!ok) this.logger.warn('control call refused', { method, refusal: header === '' ? 'CREDENTIAL_MISSING' : 'CREDENTIAL_INVALID' });
    return ok;
  }

  private toStatus(error: unknown, method: string): Partial<grpc.StatusObject> & { code: grpc.status } {
    if (error instanceof ControlError) {
      const metadata = new grpc.Metadata();
      if (error.reason) metadata.set(RELAY_REFUSAL_CODE_METADATA, error.reason);
      return { code: STATUS[error.code], details: error.message, metadata };
    }
    this.logger.error('control call failed', { method, errorName: error instanceof Error ? error.name : 'unknown', errorCode: (error as { code?: string })?.code });
    // The store or the database failing is transient for the caller; anything else is the relay's bug.
    if (error instanceof EventStoreError || error instanceof DatabaseError || (error instanceof Error && error.name.startsWith('PrismaClient'))) {
      return { code: grpc.status.UNAVAILABLE, details: 'the relay could not complete the call right now; retry later' };
    }
    return { code: grpc.status.INTERNAL, details: 'the relay failed to complete the call' };
  }
}

function unauthenticated(): Partial<grpc.StatusObject> & { code: grpc.status } {
  return { code: grpc.status.UNAUTHENTICATED, details: 'a valid service credential is required: authorization: Bearer <service credential>' };
}
