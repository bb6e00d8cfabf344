/**
 * The calls of the relay gateway's gRPC RelayControl that the command line makes (`trustmesh dev`,
 * `trustmesh relay session`), as promises, with the bearer service credential on every call. Failures are
 * `RelayControlError` with the gRPC status name and the gateway's operator-facing details (the gateway
 * never puts secrets or internal error text there).
 */
import { randomUUID } from 'node:crypto';

import { status as GrpcStatus, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { bearerMetadataOf, callUnary, channelCredentialsOf, dateFromTimestamp, relayControlV1GrpcJs, type ClientChannelTarget, type UnaryInvoker } from '@trustmesh/contracts';

/**
 * RelayControl as the platform's one rule for a gRPC client reads it (`readGrpcClientTarget`, see
 * relay-control.target.ts): TLS with its CA or plaintext, and the bearer service credential as a secret.
 */
export interface RelayControlTarget extends ClientChannelTarget {
  /** `host:port` of RelayControl. */
  address: string;
}

/** The §13 session descriptor exactly as a browser receives it. */
export interface BrowserSessionDescriptor {
  connectUrl: string;
  expiresAt: string;
}

export class RelayControlError extends Error {
  constructor(
    readonly rpc: string,
    readonly grpcCode: number,
    details: string,
    /** The gateway's stable reason (trailing metadata `relay-refusal-code`), where it sends one. */
    readonly reason = '',
  ) {
    super(`RelayControl ${rpc} failed: ${GrpcStatus[grpcCode] ?? grpcCode}${reason ? ` (${reason})` : ''}${details ? `: ${details}` : ''}`);
    this.name = 'RelayControlError';
  }
}

/** A workspace card as PublishWorkspaceCard answers, in the words the command line prints. */
export interface WorkspaceCardAnswer {
  identifier: string;
  revision: string;
  delivery: 'published' | 'pending' | 'refused';
  status: 'active' | 'deprecated';
  registryRefusalCode?: string;
}

const CALL_TIMEOUT_MS = 15_000;
const { WorkspaceConnectivity, WorkspaceCardDelivery, WorkspaceCardStatus } = relayControlV1GrpcJs;

export class RelayControl {
  private readonly client: relayControlV1GrpcJs.RelayControlClient;
  private readonly metadata: Metadata;

  constructor(target: RelayControlTarget) {
    this.client = new relayControlV1GrpcJs.RelayControlClient(target.address, channelCredentialsOf(target));
    this.metadata = bearerMetadataOf(target);
  }

  async createWorkspace(displayName: string, ownerUserId: string): Promise<string> {
    const response = await this.unary<relayControlV1GrpcJs.CreateWorkspaceRequest, relayControlV1GrpcJs.CreateWorkspaceResponse>(
      'CreateWorkspace',
      (request, metadata, options, callback) => this.client.createWorkspace(request, metadata, options, callback),
      relayControlV1GrpcJs.CreateWorkspaceRequest.fromPartial({ requestId: randomUUID(), ownerUserId, displayName }),
    );
    const id = response.workspace?.workspaceId;
    if (!id) throw new RelayControlError('CreateWorkspace', GrpcStatus.INTERNAL, 'the reply carries no workspace');
    return id;
  }

  /** A one-time pairing code: a secret, handed to the Companion only. */
  async createPairingCode(workspaceId: string, requestedByUserId: string): Promise<string> {
    const response = await this.unary<relayControlV1GrpcJs.CreatePairingCodeRequest, relayControlV1GrpcJs.CreatePairingCodeResponse>(
      'CreatePairingCode',
      (request, metadata, options, callback) => this.client.createPairingCode(request, metadata, options, callback),
      relayControlV1GrpcJs.CreatePairingCodeRequest.fromPartial({ workspaceId, requestedByUserId }),
    );
    if (!response.pairingCode) throw new RelayControlError('CreatePairingCode', GrpcStatus.INTERNAL, 'the reply carries no code');
    return response.pairingCode;
  }

  /** Whether `deviceId` is an enrolled, unrevoked device of the workspace; null if the workspace is unknown. */
  async hasDevice(workspaceId: string, deviceId: string): Promise<boolean | null> {
    let pageToken = '';
    try {
      do {
        const page = await this.unary<relayControlV1GrpcJs.ListDevicesRequest, relayControlV1GrpcJs.ListDevicesResponse>(
          'ListDevices',
          (request, metadata, options, callback) => this.client.listDevices(request, metadata, options, callback),
          relayControlV1GrpcJs.ListDevicesRequest.fromPartial({ workspaceId, pageToken }),
        );
        if (page.devices.some((device) => device.deviceId === deviceId)) return true;
        pageToken = page.nextPageToken;
      } while (pageToken);
      return false;
    } catch (error) {
      if (error instanceof RelayControlError && (error.grpcCode === GrpcStatus.NOT_FOUND || error.grpcCode === GrpcStatus.INVALID_ARGUMENT)) return null;
      throw error;
    }
  }

  /** The connected device's id and Wire version when the workspace is online, else null. */
  async onlineDevice(workspaceId: string): Promise<{ deviceId: string; wireVersion: string } | null> {
    const response = await this.unary<relayControlV1GrpcJs.GetWorkspaceStatusRequest, relayControlV1GrpcJs.GetWorkspaceStatusResponse>(
      'GetWorkspaceStatus',
      (request, metadata, options, callback) => this.client.getWorkspaceStatus(request, metadata, options, callback),
      { workspaceId },
    );
    const status = response.status;
    return status?.connectivity === WorkspaceConnectivity.ONLINE ? { deviceId: status.deviceId, wireVersion: status.wireVersion } : null;
  }

  /** A fresh single-use descriptor bound to `origin` (a bearer secret until used or expired). */
  async createBrowserSession(workspaceId: string, origin: string, acceptedWireVersions: readonly string[], userId: string): Promise<BrowserSessionDescriptor> {
    const response = await this.unary<relayControlV1GrpcJs.CreateBrowserSessionRequest, relayControlV1GrpcJs.CreateBrowserSessionResponse>(
      'CreateBrowserSession',
      (request, metadata, options, callback) => this.client.createBrowserSession(request, metadata, options, callback),
      { workspaceId, origin, acceptedWireVersions: [...acceptedWireVersions], userId },
    );
    const descriptor = response.descriptor;
    if (!descriptor?.connectUrl || !descriptor.expiresAt) throw new RelayControlError('CreateBrowserSession', GrpcStatus.INTERNAL, 'the reply carries no descriptor');
    return { connectUrl: descriptor.connectUrl, expiresAt: dateFromTimestamp(descriptor.expiresAt).toISOString() };
  }

  /** Publishes the workspace's Companion agent as an AI Card (the gateway holds the registry credential). */
  async publishWorkspaceCard(request: relayControlV1GrpcJs.PublishWorkspaceCardRequest): Promise<WorkspaceCardAnswer> {
    const response = await this.unary<relayControlV1GrpcJs.PublishWorkspaceCardRequest, relayControlV1GrpcJs.PublishWorkspaceCardResponse>(
      'PublishWorkspaceCard',
      (call, metadata, options, callback) => this.client.publishWorkspaceCard(call, metadata, options, callback),
      request,
    );
    const delivery: WorkspaceCardAnswer['delivery'] =
      response.delivery === WorkspaceCardDelivery.PUBLISHED ? 'published' : response.delivery === WorkspaceCardDelivery.REFUSED ? 'refused' : 'pending';
    return {
      identifier: response.identifier,
      revision: response.revision,
      delivery,
      status: response.status === WorkspaceCardStatus.DEPRECATED ? 'deprecated' : 'active',
      ...(response.registryRefusalCode ? { registryRefusalCode: response.registryRefusalCode } : {}),
    };
  }

  close(): void {
    this.client.close();
  }

  private unary<Req, Res>(rpc: string, invoke: UnaryInvoker<Req, Res>, request: Req): Promise<Res> {
    return callUnary(invoke, request, this.metadata, CALL_TIMEOUT_MS).catch((error: ServiceError) => {
      throw new RelayControlError(rpc, error.code, error.details, String(error.metadata?.get('relay-refusal-code')[0] ?? '').slice(0, 64));
    });
  }
}
