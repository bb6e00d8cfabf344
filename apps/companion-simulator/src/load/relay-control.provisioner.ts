/**
 * What the load mode needs from the gateway's control plane: workspaces, one-time pairing codes and browser
 * session descriptors, through gRPC RelayControl with the calling service's bearer credential. The
 * interface lets a benchmark substitute its own provisioning (e.g. for a baseline forwarder).
 */
import { randomUUID } from 'node:crypto';

import type { Metadata, ServiceError } from '@grpc/grpc-js';
import { bearerMetadataOf, callUnary, channelCredentialsOf, dateFromTimestamp, relayControlV1, relayControlV1GrpcJs, type ClientChannelTarget, type UnaryInvoker } from '@trustmesh/contracts';
import { traceGrpcClientCall, withTraceparent } from '@trustmesh/platform-tracing';

export interface BrowserSessionDescriptor {
  connectUrl: string;
  expiresAt: string;
}

export interface LoadProvisioner {
  /** A new workspace's id; `endToEndEncrypted` makes it use the encryption profile (§7). */
  createWorkspace(displayName: string, options?: { endToEndEncrypted?: boolean }): Promise<string>;
  /** A one-time pairing code (a secret: never logged). */
  createPairingCode(workspaceId: string): Promise<string>;
  /**
   * Optional: enrolls a device for the workspace directly. Without it the load run redeems a pairing code at
   * the gateway's enrollment endpoint (what a real Companion does); a baseline forwarder without one supplies
   * this instead.
   */
  enrollDevice?(workspaceId: string): Promise<{ deviceId: string; workspaceId: string; deviceCredential: string }>;
  /** A fresh single-use descriptor; the browser fetches one per connection attempt. */
  createBrowserSession(workspaceId: string, origin: string, acceptedWireVersions: string[]): Promise<BrowserSessionDescriptor>;
  close(): void;
}

/**
 * RelayControl as the platform's one rule for a gRPC client reads it (`readGrpcClientTarget`: TLS or
 * plaintext, the CA, the bearer as a secret), so the simulator reaches it as every app reaches another.
 */
export interface RelayControlTarget extends ClientChannelTarget {
  /** `host:port` of RelayControl. */
  address: string;
}

export class ProvisioningError extends Error {
  constructor(
    readonly rpc: string,
    readonly grpcCode: number | undefined,
  ) {
    super(`RelayControl ${rpc} failed${grpcCode === undefined ? '' : ` (gRPC status ${grpcCode})`}`);
    this.name = 'ProvisioningError';
  }
}

const CALL_TIMEOUT_MS = 15_000;

export class RelayControlProvisioner implements LoadProvisioner {
  private readonly client: relayControlV1GrpcJs.RelayControlClient;
  private readonly metadata: Metadata;

  constructor(target: RelayControlTarget) {
    this.client = new relayControlV1GrpcJs.RelayControlClient(target.address, channelCredentialsOf(target));
    this.metadata = bearerMetadataOf(target);
  }

  async createWorkspace(displayName: string, options: { endToEndEncrypted?: boolean } = {}): Promise<string> {
    const response = await this.unary<relayControlV1GrpcJs.CreateWorkspaceRequest, relayControlV1GrpcJs.CreateWorkspaceResponse>(
      'CreateWorkspace',
      (request, metadata, options, callback) => this.client.createWorkspace(request, metadata, options, callback),
      // fromPartial: fields added to the request later keep their proto defaults (e.g. no end-to-end encryption).
      relayControlV1GrpcJs.CreateWorkspaceRequest.fromPartial({
        requestId: randomUUID(),
        ownerUserId: 'companion-simulator-load',
        displayName,
        endToEndEncrypted: options.endToEndEncrypted === true,
      }),
    );
    const id = response.workspace?.workspaceId;
    if (!id) throw new ProvisioningError('CreateWorkspace', undefined);
    return id;
  }

  async createPairingCode(workspaceId: string): Promise<string> {
    const response = await this.unary<relayControlV1GrpcJs.CreatePairingCodeRequest, relayControlV1GrpcJs.CreatePairingCodeResponse>(
      'CreatePairingCode',
      (request, metadata, options, callback) => this.client.createPairingCode(request, metadata, options, callback),
      { workspaceId, ttlSeconds: 0, requestedByUserId: 'companion-simulator-load' },
    );
    if (!response.pairingCode) throw new ProvisioningError('CreatePairingCode', undefined);
    return response.pairingCode;
  }

  async createBrowserSession(workspaceId: string, origin: string, acceptedWireVersions: string[]): Promise<BrowserSessionDescriptor> {
    const response = await this.unary<relayControlV1GrpcJs.CreateBrowserSessionRequest, relayControlV1GrpcJs.CreateBrowserSessionResponse>(
      'CreateBrowserSession',
      (request, metadata, options, callback) => this.client.createBrowserSession(request, metadata, options, callback),
      { workspaceId, origin, acceptedWireVersions, userId: 'companion-simulator-load' },
    );
    const descriptor = response.descriptor;
    if (!descriptor?.connectUrl || !descriptor.expiresAt) throw new ProvisioningError('CreateBrowserSession', undefined);
    return { connectUrl: descriptor.connectUrl, expiresAt: dateFromTimestamp(descriptor.expiresAt).toISOString() };
  }

  close(): void {
    this.client.close();
  }

  private unary<Req, Res>(rpc: string, invoke: UnaryInvoker<Req, Res>, request: Req): Promise<Res> {
    // A client span per call, its traceparent in a copy of the shared metadata, so the gateway's span is its child.
    return traceGrpcClientCall(`/${relayControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME}.${relayControlV1.RELAY_CONTROL_SERVICE_NAME}/${rpc}`, () =>
      callUnary(invoke, request, withTraceparent(this.metadata.clone()), CALL_TIMEOUT_MS),
    ).catch((error: ServiceError) => {
      throw new ProvisioningError(rpc, error.code);
    });
  }
}
